import { createRequire } from 'node:module'
import { isIP } from 'node:net'

// The parsing and checks of the settings whose values have a shape of their own (key lists,
// proxy addresses, secrets); config.ts reads the environment and assembles the Config.

export class ConfigError extends Error {}

export interface SigningKey {
  kid: string
  secret: string
}

const MIN_BITS = 128

/**
 * Production's signing secrets must not be what people type (README, Production): zxcvbn's
 * estimate, which knows dictionaries, sequences, repeats and keyboard walks, must reach 128 bits.
 * Any `openssl rand -hex 32` or `-base64 48` output scores far above it (about 200 bits at least).
 */
export function assertUnguessable({ kid, secret }: SigningKey): void {
  const bits = guessableBits(secret)
  if (bits !== null) {
    throw new ConfigError(
      `Invalid AMPARO_JWT_KEYS: the secret of kid ${kid} is guessable (about ${bits} bits by zxcvbn); production needs ${MIN_BITS}+ bits, e.g. ${kid}=$(openssl rand -base64 48)`,
    )
  }
}

/** The bits zxcvbn gives a secret under production's MIN_BITS (rounded down); null when it reaches them. */
export function guessableBits(secret: string): number | null {
  const bits = Math.floor(estimatedStrengthBits(secret))
  return bits < MIN_BITS ? bits : null
}

let estimator: { check(secret: string): { guessesLog10: number } } | undefined

/**
 * Bits an attacker who knows how people pick secrets needs to guess `secret` (zxcvbn-ts). Loaded
 * on first use (≈ 200 ms, its dictionaries): only a production start needs it.
 */
export function estimatedStrengthBits(secret: string): number {
  if (!estimator) {
    const require = createRequire(import.meta.url)
    const { ZxcvbnFactory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core')
    const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common')
    estimator = new ZxcvbnFactory({ graphs: common.adjacencyGraphs, dictionary: common.dictionary })
  }
  return estimator.check(secret).guessesLog10 / Math.log10(2)
}

/** An IPv4 or IPv6 address, with an optional CIDR prefix that fits it (`10.0.0.0/8`, `::1`). */
function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128))
}

/** `` / `false`, `true`, or comma-separated addresses and CIDR ranges of the proxies. */
export function parseTrustProxy(value: string): boolean | string[] {
  const trimmed = value.trim()
  if (trimmed === '' || trimmed === 'false') return false
  if (trimmed === 'true') return true
  const addresses = trimmed.split(',').map((a) => a.trim())
  if (!addresses.every(isProxyAddress)) {
    throw new ConfigError(
      'Invalid AMPARO_TRUST_PROXY: expected true, false, or addresses / CIDR ranges separated by commas',
    )
  }
  return addresses
}

/**
 * `kid1=secret1,kid2=secret2`; secrets of at least 32 characters. Only the first `=` of a pair
 * ends the kid: a secret may hold more (base64 pads with them).
 */
export function parseJwtKeys(value: string): SigningKey[] {
  if (!value.trim()) return []
  const keys = value.split(',').map((pair) => {
    const separator = pair.indexOf('=')
    const kid = pair.slice(0, separator).trim()
    const secret = pair.slice(separator + 1).trim()
    if (separator < 0 || !/^[A-Za-z0-9._-]{1,64}$/.test(kid) || secret.length < 32) {
      throw new ConfigError('Invalid AMPARO_JWT_KEYS: expected kid=secret pairs, secrets of 32+ characters')
    }
    return { kid, secret }
  })
  // Tokens name their key by kid alone: a second secret under the same kid would take over
  // signing in one process (the last wins in a Map) and fail verification in another.
  const repeated = keys.find((key, i) => keys.findIndex((other) => other.kid === key.kid) !== i)
  if (repeated) {
    throw new ConfigError(
      `Invalid AMPARO_JWT_KEYS: kid ${repeated.kid} appears twice; each key needs its own kid`,
    )
  }
  return keys
}
