import { type Static, Type } from 'typebox'
import { ConfigError, guessableBits } from './config-values.js'

// The operator console's own listener (README, Operator console), read apart from the API's: its
// default depends on the environment, and it may be off.

export const DEFAULT_CONSOLE_PORT = 3001

export const ConsoleEnv = Type.Object({
  AMPARO_CONSOLE_HOST: Type.String({ default: '127.0.0.1' }),
  // No default: unset means 3001 in test and no console in production (consoleSettings).
  AMPARO_CONSOLE_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  AMPARO_CONSOLE_SECRET_KEY: Type.String({ default: '' }),
})

type ConsoleEnvValues = Static<typeof ConsoleEnv> & { AMPARO_ENV: 'test' | 'production' }

/**
 * AMPARO_CONSOLE_HOST/PORT, by default 127.0.0.1:3001 in test; in production only when the port is
 * set. Null: no console (production without a port, or port 0). `portSet`: the port was chosen, so
 * a start that cannot bind it fails; the default one, when taken, only leaves the console off.
 */
export type ConsoleSettings = { host: string; port: number; portSet: boolean } | null

export function consoleSettings(env: ConsoleEnvValues): ConsoleSettings {
  const port = env.AMPARO_CONSOLE_PORT
  if (port === 0 || (port === undefined && env.AMPARO_ENV === 'production')) return null
  return { host: env.AMPARO_CONSOLE_HOST, port: port ?? DEFAULT_CONSOLE_PORT, portSet: port !== undefined }
}

/**
 * Test's key: the seeds of a test database are no secret; production must set its own, and this one,
 * published with the code, is refused there.
 */
export const TEST_CONSOLE_SECRET_KEY = 'amparo-test-console-secret-key-not-for-production'

const EXAMPLE = 'e.g. $(openssl rand -base64 48)'

/**
 * The secret the operators' TOTP seeds are encrypted under: required in production with a console,
 * and there, like the JWT keys, one nobody can guess (README, Production; docs/decisions.md).
 */
export function consoleSecretKey(env: ConsoleEnvValues): string {
  const key = env.AMPARO_CONSOLE_SECRET_KEY
  const production = env.AMPARO_ENV === 'production'
  if (key && key.length < 32)
    throw new ConfigError(`Invalid AMPARO_CONSOLE_SECRET_KEY: 32+ characters, ${EXAMPLE}`)
  if (key && production) assertProductionKey(key)
  if (key) return key
  if (production && consoleSettings(env) !== null)
    throw new ConfigError(
      'AMPARO_CONSOLE_SECRET_KEY is required when AMPARO_ENV=production runs the console (it encrypts the TOTP seeds)',
    )
  return TEST_CONSOLE_SECRET_KEY
}

/** Never echoes the key: the message names only why it is refused. */
function assertProductionKey(key: string): void {
  if (key === TEST_CONSOLE_SECRET_KEY)
    throw new ConfigError(
      `Invalid AMPARO_CONSOLE_SECRET_KEY: that is the test environment's published key; production needs its own, ${EXAMPLE}`,
    )
  const bits = guessableBits(key)
  if (bits !== null)
    throw new ConfigError(
      `Invalid AMPARO_CONSOLE_SECRET_KEY: guessable (about ${bits} bits by zxcvbn); production needs 128+ bits, ${EXAMPLE}`,
    )
}
