import { type Static, Type } from 'typebox'
import { Value } from 'typebox/value'
import {
  assertUnguessable,
  ConfigError,
  parseJwtKeys,
  parseTrustProxy,
  type SigningKey,
} from './config-values.js'
import { isValidTimeZone } from './shared/time.js'

/** How long a card charge holds its installment or plan, unless AMPARO_PAYMENT_CLAIM_SECONDS says. */
export const DEFAULT_CLAIM_SECONDS = 120
/** Gateway calls a worker makes at once, unless AMPARO_RECURRENCE_CONCURRENCY says. */
export const DEFAULT_CONCURRENCY = 20

// Every setting the service reads, validated once at start-up. Nothing else reads process.env.
export const EnvSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATABASE_URL: Type.String({ default: '' }),
  AMPARO_SQLITE_FILE: Type.String({ default: './data/amparo.sqlite' }),
  AMPARO_ENV: Type.Union([Type.Literal('test'), Type.Literal('production')], { default: 'test' }),
  AMPARO_TIMEZONE: Type.String({ default: 'America/Sao_Paulo' }),
  AMPARO_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
  AMPARO_PUBLIC_URL: Type.String({ default: '' }),
  AMPARO_JWT_KEYS: Type.String({ default: '' }),
  AMPARO_PAYMENT_GATEWAY: Type.Union(
    [Type.Literal('sandbox'), Type.Literal('stripe'), Type.Literal('none'), Type.Literal('')],
    { default: '' },
  ),
  STRIPE_SECRET_KEY: Type.String({ default: '' }),
  STRIPE_API_URL: Type.String({ default: '' }),
  AMPARO_PAYMENT_CLAIM_SECONDS: Type.Integer({ minimum: 35, maximum: 3600, default: DEFAULT_CLAIM_SECONDS }),
  AMPARO_CARD_DECLINES_PER_CONTRACT: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  AMPARO_CARD_DECLINES_PER_PARTNER: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 200 }),
  AMPARO_RECURRENCE_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_CONCURRENCY }),
  AMPARO_RATE_LIMIT: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1200 }),
  AMPARO_LOGIN_RATE_LIMIT: Type.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
  AMPARO_TRUST_PROXY: Type.String({ default: '' }),
  AMPARO_HEADERS_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 30 }),
  AMPARO_BODY_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 30 }),
  AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS: Type.Integer({ minimum: 2, maximum: 72, default: 72 }),
  AMPARO_MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 100_000, default: 1000 }),
  AMPARO_MAX_CONNECTIONS_PER_ADDRESS: Type.Integer({ minimum: 0, maximum: 100_000, default: 100 }),
  REDIS_URL: Type.String({ default: '' }),
  METRICS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 0 }),
  METRICS_HOST: Type.String({ default: '127.0.0.1' }),
  AMPARO_CONSOLE_HOST: Type.String({ default: '127.0.0.1' }),
  // No default: unset means 3001 in test and no console in production (consoleSettings).
  AMPARO_CONSOLE_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  AMPARO_CONSOLE_SECRET_KEY: Type.String({ default: '' }),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  AMPARO_DRAIN_SECONDS: Type.Integer({ minimum: 0, maximum: 300, default: 0 }),
  // Tests' fault injection, honoured only in test (docs/decisions.md); not a deployment setting.
  AMPARO_FAULT_KILL_AFTER_COMMIT: Type.String({ default: '' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
})
type Env = Static<typeof EnvSchema>

export interface Config {
  host: string
  port: number
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; poolMax: number }
  env: 'test' | 'production'
  timeZone: string
  tokenTtlSeconds: number
  /** Base of every absolute link (`meta.link`, pagination); empty → taken from the request. */
  publicUrl: string
  /** Signing keys, newest first: the first signs, all verify (rotation). Empty → kept in the database. */
  jwtKeys: SigningKey[]
  logLevel: Env['LOG_LEVEL']
  /** Requests a minute: per partner on the API, per client id and address on login. */
  rateLimits: { perPartner: number; loginPerClient: number }
  /**
   * Which proxies' `X-Forwarded-For` names the client (Fastify's trustProxy): false (default, the
   * socket's address is the client's), true (any), or the proxies' addresses / CIDR ranges.
   */
  trustProxy: boolean | string[]
  /**
   * Slow and idle clients (README, Configuration): seconds for a request's headers to arrive, then for its
   * body (408 and closed past either), seconds an idle kept-alive connection stays open, and the
   * open connections one process accepts, in all and from one address (0: no cap; the trusted
   * proxies' addresses are not capped).
   */
  connections: {
    headersTimeoutSeconds: number
    bodyTimeoutSeconds: number
    keepAliveTimeoutSeconds: number
    max: number
    maxPerAddress: number
  }
  /** Shared rate-limit counters for several API processes; empty → in memory. */
  redisUrl: string
  /** Prometheus metrics on their own address; port 0 → off. */
  metrics: { host: string; port: number }
  /**
   * The operator console's own listener (README, Operator console): AMPARO_CONSOLE_HOST/PORT, by
   * default 127.0.0.1:3001 in test; in production only when the port is set. Null: no console
   * (production without a port, or port 0). `portSet`: the port was chosen, so a start that cannot
   * bind it fails; the default one, when taken, only leaves the console off.
   */
  console: { host: string; port: number; portSet: boolean } | null
  /**
   * The secret the operators' TOTP seeds are encrypted under (AMPARO_CONSOLE_SECRET_KEY, 32+
   * characters): required in production with a console; a fixed one in test.
   */
  consoleSecretKey: string
  /**
   * The own card gateway: the sandbox (test cards), test's default and refused in production;
   * `stripe` (README, Going live: card payments through Stripe); `none` (card payments unavailable), production's default.
   */
  paymentGateway: 'sandbox' | 'stripe' | 'none'
  /** With `stripe`: the secret (or restricted) key and an optional Stripe-compatible server (tests). */
  stripe: { secretKey: string; apiUrl: string } | null
  /**
   * How long a card charge holds its installment or annual plan before another try may take it
   * over: longer than a gateway call may last (30 s), so a live charge is never taken over.
   */
  paymentClaimSeconds: number
  /** Gateway calls a worker makes at once: recurrence charges, refunds. */
  recurrenceConcurrency: number
  /**
   * Card testing: declined card attempts (payments, card updates) allowed a day on one subscription
   * or annual plan, and on one partner; past them, 429 before the gateway is called.
   */
  cardDeclineLimits: { perContract: number; perPartner: number }
  /** After SIGTERM: seconds of serving with `/ready` at 503 before the listener closes. */
  drainSeconds: number
  /** Test only: requests (`METHOD /path`) whose process dies (SIGKILL) right after their write commits. */
  faultKillAfterCommit: RegExp | null
}

/**
 * An empty value counts as unset, so its default applies: `HOST=` in an env file must not mean
 * every interface, nor `AMPARO_SQLITE_FILE=` a throwaway database.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): Readonly<Config> {
  const raw = Object.fromEntries(
    Object.keys(EnvSchema.properties).flatMap((k) => {
      const value = source[k]?.trim()
      return value === undefined || value === '' ? [] : [[k, value]]
    }),
  )
  // TypeBox converts `3.5`, `0x10`, `1e3` and `true` to integers; a setting is only whole digits.
  for (const [key, value] of Object.entries(raw)) {
    const schema = (EnvSchema.properties as Record<string, { type?: string }>)[key]
    if (schema?.type === 'integer' && !/^\d+$/.test(value as string))
      throw new ConfigError(`Invalid ${key} (${JSON.stringify(value)}): must be a whole number`)
  }
  const env = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw))
  const firstError = Value.Errors(EnvSchema, env)[0]
  if (firstError) {
    const key = firstError.instancePath.replace(/^\//, '') || 'environment'
    const choices = (EnvSchema.properties as Record<string, { anyOf?: { const?: unknown }[] }>)[key]?.anyOf
      ?.map((s) => s.const)
      .filter(Boolean)
    const why = choices?.length ? `must be one of ${choices.join(', ')}` : firstError.message
    throw new ConfigError(`Invalid ${key} (${JSON.stringify(source[key] ?? '')}): ${why}`)
  }
  return toConfig(env as Env)
}

function toConfig(env: Env): Readonly<Config> {
  if (!isValidTimeZone(env.AMPARO_TIMEZONE)) {
    throw new ConfigError(`Invalid AMPARO_TIMEZONE: ${env.AMPARO_TIMEZONE} is not an IANA time zone`)
  }
  if (env.AMPARO_PUBLIC_URL && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(env.AMPARO_PUBLIC_URL)) {
    throw new ConfigError('Invalid AMPARO_PUBLIC_URL: expected an absolute http(s) address')
  }
  const jwtKeys = parseJwtKeys(env.AMPARO_JWT_KEYS)
  if (env.AMPARO_ENV === 'production') assertProductionReady(env, jwtKeys)
  const paymentGateway = env.AMPARO_PAYMENT_GATEWAY || (env.AMPARO_ENV === 'production' ? 'none' : 'sandbox')
  if (env.AMPARO_ENV === 'production' && paymentGateway === 'sandbox') {
    throw new ConfigError(
      'AMPARO_PAYMENT_GATEWAY=sandbox is for the test environment; production needs a real gateway',
    )
  }
  const stripe = paymentGateway === 'stripe' ? stripeSettings(env) : null
  if (env.REDIS_URL && !/^rediss?:\/\//.test(env.REDIS_URL)) {
    throw new ConfigError('Invalid REDIS_URL: expected redis://host:port')
  }
  const url = env.DATABASE_URL
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('Invalid DATABASE_URL: only postgres:// addresses are supported')
  }
  return Object.freeze({
    host: env.HOST,
    port: env.PORT,
    database: url
      ? { kind: 'postgres' as const, url, poolMax: env.DB_POOL_MAX }
      : { kind: 'sqlite' as const, file: env.AMPARO_SQLITE_FILE },
    env: env.AMPARO_ENV,
    timeZone: env.AMPARO_TIMEZONE,
    tokenTtlSeconds: env.AMPARO_TOKEN_TTL,
    publicUrl: env.AMPARO_PUBLIC_URL.replace(/\/+$/, ''),
    jwtKeys,
    logLevel: env.LOG_LEVEL,
    drainSeconds: env.AMPARO_DRAIN_SECONDS,
    paymentGateway,
    stripe,
    paymentClaimSeconds: env.AMPARO_PAYMENT_CLAIM_SECONDS,
    recurrenceConcurrency: env.AMPARO_RECURRENCE_CONCURRENCY,
    cardDeclineLimits: {
      perContract: env.AMPARO_CARD_DECLINES_PER_CONTRACT,
      perPartner: env.AMPARO_CARD_DECLINES_PER_PARTNER,
    },
    rateLimits: { perPartner: env.AMPARO_RATE_LIMIT, loginPerClient: env.AMPARO_LOGIN_RATE_LIMIT },
    trustProxy: parseTrustProxy(env.AMPARO_TRUST_PROXY),
    connections: {
      headersTimeoutSeconds: env.AMPARO_HEADERS_TIMEOUT_SECONDS,
      bodyTimeoutSeconds: env.AMPARO_BODY_TIMEOUT_SECONDS,
      keepAliveTimeoutSeconds: env.AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS,
      max: env.AMPARO_MAX_CONNECTIONS,
      maxPerAddress: env.AMPARO_MAX_CONNECTIONS_PER_ADDRESS,
    },
    redisUrl: env.REDIS_URL,
    metrics: { host: env.METRICS_HOST, port: env.METRICS_PORT },
    console: consoleSettings(env),
    consoleSecretKey: consoleSecretKey(env),
    faultKillAfterCommit: faultPattern(env),
  })
}

export const DEFAULT_CONSOLE_PORT = 3001

function consoleSettings(env: Env): Config['console'] {
  const port = env.AMPARO_CONSOLE_PORT
  if (port === 0 || (port === undefined && env.AMPARO_ENV === 'production')) return null
  return { host: env.AMPARO_CONSOLE_HOST, port: port ?? DEFAULT_CONSOLE_PORT, portSet: port !== undefined }
}

/** Test's key: the seeds of a test database are no secret; production must set its own. */
const TEST_CONSOLE_SECRET_KEY = 'amparo-test-console-secret-key-not-for-production'

function consoleSecretKey(env: Env): string {
  const key = env.AMPARO_CONSOLE_SECRET_KEY
  if (key && key.length < 32)
    throw new ConfigError(
      'Invalid AMPARO_CONSOLE_SECRET_KEY: 32+ characters, e.g. $(openssl rand -base64 48)',
    )
  if (key) return key
  if (env.AMPARO_ENV === 'production' && consoleSettings(env) !== null)
    throw new ConfigError(
      'AMPARO_CONSOLE_SECRET_KEY is required when AMPARO_ENV=production runs the console (it encrypts the TOTP seeds)',
    )
  return TEST_CONSOLE_SECRET_KEY
}

function faultPattern(env: Env): RegExp | null {
  const source = env.AMPARO_FAULT_KILL_AFTER_COMMIT
  if (!source || env.AMPARO_ENV !== 'test') return null
  try {
    return new RegExp(source)
  } catch {
    throw new ConfigError('Invalid AMPARO_FAULT_KILL_AFTER_COMMIT: not a regular expression')
  }
}

/**
 * The Stripe key must be of the deployment's environment (a live key in test would take real money,
 * a test key in production none), and STRIPE_API_URL an http(s) base address. Never echoes the key.
 */
function stripeSettings(env: Env): { secretKey: string; apiUrl: string } {
  const secretKey = env.STRIPE_SECRET_KEY
  const mode = env.AMPARO_ENV === 'production' ? 'live' : 'test'
  if (!secretKey) throw new ConfigError('STRIPE_SECRET_KEY is required when AMPARO_PAYMENT_GATEWAY=stripe')
  if (!new RegExp(`^[sr]k_${mode}_[A-Za-z0-9_]+$`).test(secretKey)) {
    throw new ConfigError(
      `Invalid STRIPE_SECRET_KEY: AMPARO_ENV=${env.AMPARO_ENV} needs a ${mode} key (sk_${mode}_… or rk_${mode}_…)`,
    )
  }
  const apiUrl = env.STRIPE_API_URL.replace(/\/+$/, '')
  if (apiUrl && !/^https?:\/\/[^\s/?#]+$/.test(apiUrl)) {
    throw new ConfigError('Invalid STRIPE_API_URL: expected a base address such as http://127.0.0.1:12111')
  }
  return { secretKey, apiUrl }
}

/**
 * What production cannot run without (README, Production): signing keys nobody can guess, and a
 * public https address, so that links never follow the Host header a caller sends.
 */
function assertProductionReady(env: Env, jwtKeys: SigningKey[]): void {
  if (jwtKeys.length === 0) throw new ConfigError('AMPARO_JWT_KEYS is required when AMPARO_ENV=production')
  for (const key of jwtKeys) assertUnguessable(key)
  if (!env.AMPARO_PUBLIC_URL) {
    throw new ConfigError(
      'AMPARO_PUBLIC_URL is required when AMPARO_ENV=production (the base of every link, e.g. https://api.example.com)',
    )
  }
  // Links a partner follows (pagination, the SDK, certificates) must not send its token in clear.
  if (!env.AMPARO_PUBLIC_URL.startsWith('https://')) {
    throw new ConfigError(
      'Invalid AMPARO_PUBLIC_URL: production needs an https address, e.g. https://api.example.com',
    )
  }
}
