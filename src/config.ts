import { type Static, Type } from 'typebox'
import { Value } from 'typebox/value'
import { ConnectionEnv, type ConnectionSettings, connectionSettings } from './config-connections.js'
import { ConsoleEnv, type ConsoleSettings, consoleSecretKey, consoleSettings } from './config-console.js'
import { MailEnv, type MailSettings, mailSettings } from './config-mail.js'
import { PortalEnv, type PortalSettings, portalSettings } from './config-portal.js'
import { assertUnguessable, ConfigError, parseJwtKeys, type SigningKey } from './config-values.js'
import { isValidTimeZone } from './shared/time.js'

/** How long a card charge holds its installment or plan, unless AMPARO_PAYMENT_CLAIM_SECONDS says. */
export const DEFAULT_CLAIM_SECONDS = 120
/** Gateway calls a worker makes at once, unless AMPARO_RECURRENCE_CONCURRENCY says. */
export const DEFAULT_CONCURRENCY = 20

// Every setting the service reads, validated once at start-up. Nothing else reads process.env.
// The connections' and the console's are read by their own readers (config-connections.ts,
// config-console.ts).
const EnvSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
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
  STRIPE_WEBHOOK_SECRET: Type.String({ default: '' }),
  AMPARO_PAYMENT_CLAIM_SECONDS: Type.Integer({ minimum: 35, maximum: 3600, default: DEFAULT_CLAIM_SECONDS }),
  AMPARO_CARD_DECLINES_PER_CONTRACT: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  AMPARO_CARD_DECLINES_PER_PARTNER: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 200 }),
  AMPARO_RECURRENCE_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_CONCURRENCY }),
  AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR: Type.Integer({ minimum: 1, maximum: 10_000, default: 90 }),
  AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY: Type.Integer({ minimum: 1, maximum: 10_485_760, default: 2048 }),
  AMPARO_RATE_LIMIT: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1200 }),
  AMPARO_LOGIN_RATE_LIMIT: Type.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
  METRICS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 0 }),
  METRICS_HOST: Type.String({ default: '127.0.0.1' }),
  AMPARO_DRAIN_SECONDS: Type.Integer({ minimum: 0, maximum: 300, default: 0 }),
  // Tests' fault injection, honoured only in test (docs/decisions.md); not a deployment setting.
  AMPARO_FAULT_KILL_AFTER_COMMIT: Type.String({ default: '' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  ...ConnectionEnv.properties,
  ...ConsoleEnv.properties,
  ...MailEnv.properties,
  ...PortalEnv.properties,
})
type Env = Static<typeof EnvSchema>

export interface Config extends ConnectionSettings {
  host: string
  port: number
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
  /** Prometheus metrics on their own address; port 0 → off. */
  metrics: { host: string; port: number }
  /** The operator console's own listener (README, Operator console). */
  console: ConsoleSettings
  /** The insured's portal's own listener and public address (README, Portal do segurado). */
  portal: PortalSettings
  /**
   * The secret the operators' TOTP seeds are encrypted under (AMPARO_CONSOLE_SECRET_KEY, 32+
   * characters): required in production with a console; a fixed one in test.
   */
  consoleSecretKey: string
  /** Messages to the insured: the mail server, the sender, the portal's address (config-mail.ts). */
  mail: MailSettings
  /**
   * The own card gateway: the sandbox (test cards), test's default and refused in production;
   * `stripe` (README, Going live: card payments through Stripe); `none` (card payments unavailable), production's default.
   */
  paymentGateway: 'sandbox' | 'stripe' | 'none'
  /** With `stripe`: the secret (or restricted) key and an optional Stripe-compatible server (tests). */
  stripe: { secretKey: string; apiUrl: string } | null
  /**
   * The signing secret of the endpoint registered at Stripe (`whsec_…`): `POST /stripe/webhooks`
   * applies only events it signed; empty → every delivery is refused (README, Going live: Stripe's events).
   */
  stripeWebhookSecret: string
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
  /**
   * What claim documents may take (README, Claim documents): uploaded to one contract's claims in
   * 365 days (withdrawn claims' counted), and bytes uploaded by one partner in a day of the service's zone.
   */
  claimDocumentLimits: { perContractYear: number; bytesPerPartnerDay: number }
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
  return Object.freeze({
    host: env.HOST,
    port: env.PORT,
    ...connectionSettings(env),
    env: env.AMPARO_ENV,
    timeZone: env.AMPARO_TIMEZONE,
    tokenTtlSeconds: env.AMPARO_TOKEN_TTL,
    publicUrl: env.AMPARO_PUBLIC_URL.replace(/\/+$/, ''),
    jwtKeys,
    logLevel: env.LOG_LEVEL,
    drainSeconds: env.AMPARO_DRAIN_SECONDS,
    paymentGateway,
    stripe,
    stripeWebhookSecret: webhookSecret(env),
    paymentClaimSeconds: env.AMPARO_PAYMENT_CLAIM_SECONDS,
    recurrenceConcurrency: env.AMPARO_RECURRENCE_CONCURRENCY,
    cardDeclineLimits: {
      perContract: env.AMPARO_CARD_DECLINES_PER_CONTRACT,
      perPartner: env.AMPARO_CARD_DECLINES_PER_PARTNER,
    },
    claimDocumentLimits: {
      perContractYear: env.AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR,
      bytesPerPartnerDay: env.AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY * 1024 * 1024,
    },
    rateLimits: { perPartner: env.AMPARO_RATE_LIMIT, loginPerClient: env.AMPARO_LOGIN_RATE_LIMIT },
    metrics: { host: env.METRICS_HOST, port: env.METRICS_PORT },
    console: consoleSettings(env),
    portal: portalSettings(env),
    consoleSecretKey: consoleSecretKey(env),
    mail: mailSettings(env),
    faultKillAfterCommit: faultPattern(env),
  })
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

function webhookSecret(env: Env): string {
  const secret = env.STRIPE_WEBHOOK_SECRET
  if (secret && !/^whsec_[A-Za-z0-9+/=_-]+$/.test(secret)) {
    throw new ConfigError(
      'Invalid STRIPE_WEBHOOK_SECRET: expected the endpoint signing secret Stripe shows (whsec_…)',
    )
  }
  return secret
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
