import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'
import { ConfigError } from './config-values.js'

// What production accepts: a signing key of random base64, and the public address.
const STRONG_KEY = 'k1=Qm9vaDR6cXh2N2Vrc2pHdFpMdzJ5YVJtTlBmVTk4Q2RIY1hq'
const PRODUCTION = {
  AMPARO_ENV: 'production',
  AMPARO_JWT_KEYS: STRONG_KEY,
  AMPARO_PUBLIC_URL: 'https://api.example.com',
}

describe('loadConfig', () => {
  it('has working defaults: SQLite, test environment, São Paulo time, sandbox gateway', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      database: { kind: 'sqlite', file: './data/amparo.sqlite' },
      env: 'test',
      timeZone: 'America/Sao_Paulo',
      tokenTtlSeconds: 3600,
      jwtKeys: [],
      paymentGateway: 'sandbox',
    })
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('honours the fault-injection setting only in test', () => {
    const setting = { AMPARO_FAULT_KILL_AFTER_COMMIT: '^POST /subscriptions$' }
    expect(loadConfig(setting).faultKillAfterCommit?.test('POST /subscriptions')).toBe(true)
    expect(loadConfig({}).faultKillAfterCommit).toBeNull()
    expect(loadConfig({ ...PRODUCTION, ...setting }).faultKillAfterCommit).toBeNull()
    expect(() => loadConfig({ AMPARO_FAULT_KILL_AFTER_COMMIT: '(' })).toThrow(ConfigError)
  })

  it('reads PostgreSQL, numbers and signing keys from the environment', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@h:5432/db',
      PORT: '8080',
      DB_POOL_MAX: '4',
      AMPARO_JWT_KEYS: `new=${'n'.repeat(32)}, old=${'o'.repeat(40)}`,
      AMPARO_PUBLIC_URL: 'https://api.example.com/',
    })
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/db', poolMax: 4 })
    expect(config.port).toBe(8080)
    expect(config.jwtKeys.map((k) => k.kid)).toEqual(['new', 'old'])
    expect(config.publicUrl).toBe('https://api.example.com')
  })

  it('keeps every = of a secret: only the first one ends the kid', () => {
    const base64 = Buffer.alloc(32, 0xfb).toString('base64')
    expect(base64).toMatch(/=$/)
    const secrets = ['0123456789abcdef0123456789abcdef=XYZsecretpart', base64, `shortpart=${'x'.repeat(36)}`]
    const config = loadConfig({ AMPARO_JWT_KEYS: secrets.map((s, i) => `k${i}=${s}`).join(',') })
    expect(config.jwtKeys).toEqual(secrets.map((secret, i) => ({ kid: `k${i}`, secret })))
  })

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ AMPARO_ENV: 'staging' }, /AMPARO_ENV.*test, production/],
    [{ AMPARO_TIMEZONE: 'Mars/Olympus' }, /AMPARO_TIMEZONE/],
    [{ AMPARO_TOKEN_TTL: '10' }, /AMPARO_TOKEN_TTL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ AMPARO_PUBLIC_URL: 'not a url' }, /AMPARO_PUBLIC_URL/],
    [{ AMPARO_JWT_KEYS: 'k1=short' }, /AMPARO_JWT_KEYS/],
    [{ AMPARO_JWT_KEYS: 'no-separator' }, /AMPARO_JWT_KEYS/],
    [{ AMPARO_JWT_KEYS: `=${'s'.repeat(32)}` }, /AMPARO_JWT_KEYS/],
    [{ AMPARO_JWT_KEYS: `k1=short=${'s'.repeat(4)}` }, /AMPARO_JWT_KEYS/],
    [
      { AMPARO_JWT_KEYS: `k1=${'a'.repeat(32)},k1=${'b'.repeat(32)}` },
      /AMPARO_JWT_KEYS: kid k1 appears twice/,
    ],
    [{ AMPARO_JWT_KEYS: `k1=${'a'.repeat(32)}, k2=${'b'.repeat(32)}, k1 =${'a'.repeat(32)}` }, /kid k1/],
    [{ AMPARO_ENV: 'production' }, /AMPARO_JWT_KEYS is required/],
    [{ ...PRODUCTION, AMPARO_PAYMENT_GATEWAY: 'sandbox' }, /sandbox/],
    [{ AMPARO_HEADERS_TIMEOUT_SECONDS: '0' }, /AMPARO_HEADERS_TIMEOUT_SECONDS/],
    [{ AMPARO_BODY_TIMEOUT_SECONDS: '1.5' }, /AMPARO_BODY_TIMEOUT_SECONDS/],
    [{ AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS: '73' }, /AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS/],
    [{ AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS: '1' }, /AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS/],
    [{ AMPARO_MAX_CONNECTIONS: '0' }, /AMPARO_MAX_CONNECTIONS/],
    [{ AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR: '0' }, /AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR/],
    [{ AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY: '1.5' }, /AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY/],
    [{ AMPARO_PAYMENT_GATEWAY: 'paypal' }, /one of sandbox, stripe, none/],
    [
      { AMPARO_PAYMENT_GATEWAY: 'stripe' },
      /^STRIPE_SECRET_KEY is required when AMPARO_PAYMENT_GATEWAY=stripe$/,
    ],
    [{ AMPARO_PAYMENT_GATEWAY: 'stripe', STRIPE_SECRET_KEY: 'sk_live_abc123' }, /needs a test key/],
    [{ AMPARO_PAYMENT_GATEWAY: 'stripe', STRIPE_SECRET_KEY: 'pk_test_abc123' }, /needs a test key/],
    [
      {
        ...PRODUCTION,
        AMPARO_PAYMENT_GATEWAY: 'stripe',
        STRIPE_SECRET_KEY: 'rk_test_abc',
      },
      /AMPARO_ENV=production needs a live key \(sk_live_… or rk_live_…\)/,
    ],
    [
      {
        AMPARO_PAYMENT_GATEWAY: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_abc',
        STRIPE_API_URL: 'localhost:12111',
      },
      /Invalid STRIPE_API_URL/,
    ],
    [{ AMPARO_TRUST_PROXY: 'yes' }, /AMPARO_TRUST_PROXY/],
    [{ AMPARO_TRUST_PROXY: '10.0.0.1, lb.internal' }, /AMPARO_TRUST_PROXY/],
    [{ AMPARO_TRUST_PROXY: '10.0.0.0/99' }, /AMPARO_TRUST_PROXY/],
    [{ AMPARO_TRUST_PROXY: '999.1.1.1' }, /AMPARO_TRUST_PROXY/],
    [{ AMPARO_TRUST_PROXY: '::::' }, /AMPARO_TRUST_PROXY/],
    [{ AMPARO_TRUST_PROXY: '::1/129' }, /AMPARO_TRUST_PROXY/],
    [{ PORT: '3.5' }, /PORT \("3.5"\): must be a whole number/],
    [{ PORT: '0x10' }, /PORT/],
    [{ PORT: '1e3' }, /PORT/],
    [{ PORT: 'true' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ DB_POOL_MAX: '1.9' }, /DB_POOL_MAX/],
    [{ AMPARO_DRAIN_SECONDS: '2.7' }, /AMPARO_DRAIN_SECONDS/],
    [{ AMPARO_TOKEN_TTL: '3600.9' }, /AMPARO_TOKEN_TTL/],
  ])('refuses %o with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  it('reads an empty value as unset: the default applies', () => {
    const config = loadConfig({
      HOST: '',
      PORT: ' ',
      AMPARO_SQLITE_FILE: '',
      METRICS_HOST: '',
      DB_POOL_MAX: '',
    })
    expect(config.host).toBe('127.0.0.1')
    expect(config.port).toBe(3000)
    expect(config.database).toEqual({ kind: 'sqlite', file: './data/amparo.sqlite' })
    expect(config.metrics.host).toBe('127.0.0.1')
  })

  it('reads whole numbers, spaces around them aside', () => {
    expect(loadConfig({ PORT: ' 8080 ', AMPARO_DRAIN_SECONDS: '15' })).toMatchObject({
      port: 8080,
      drainSeconds: 15,
    })
  })

  it('reads which proxies to trust: none by default, any, or their addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false)
    expect(loadConfig({ AMPARO_TRUST_PROXY: 'false' }).trustProxy).toBe(false)
    expect(loadConfig({ AMPARO_TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(loadConfig({ AMPARO_TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy).toEqual(['10.0.0.0/8', '::1'])
    expect(loadConfig({ AMPARO_TRUST_PROXY: '192.168.1.10/32,fd00::/8' }).trustProxy).toEqual([
      '192.168.1.10/32',
      'fd00::/8',
    ])
  })

  it('reads the Stripe settings, a key of the environment and a base address, never echoing the key', () => {
    const test = loadConfig({
      AMPARO_PAYMENT_GATEWAY: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_abc123',
      STRIPE_API_URL: 'http://127.0.0.1:12111/',
    })
    expect(test).toMatchObject({
      paymentGateway: 'stripe',
      stripe: { secretKey: 'sk_test_abc123', apiUrl: 'http://127.0.0.1:12111' },
    })
    const live = loadConfig({
      ...PRODUCTION,
      AMPARO_PAYMENT_GATEWAY: 'stripe',
      STRIPE_SECRET_KEY: 'rk_live_xyz',
    })
    expect(live.stripe).toEqual({ secretKey: 'rk_live_xyz', apiUrl: '' })
    expect(() =>
      loadConfig({ AMPARO_PAYMENT_GATEWAY: 'stripe', STRIPE_SECRET_KEY: 'sk_live_secret9' }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret9') }))
    expect(loadConfig({ STRIPE_SECRET_KEY: 'sk_live_ignored' }).stripe).toBeNull()
  })

  it('defaults production to no card gateway rather than the sandbox', () => {
    expect(loadConfig(PRODUCTION).paymentGateway).toBe('none')
  })

  it('bounds claim documents by default: 90 a contract in 365 days, 2 GiB a partner a day', () => {
    expect(loadConfig({}).claimDocumentLimits).toEqual({
      perContractYear: 90,
      bytesPerPartnerDay: 2048 * 1024 * 1024,
    })
    expect(
      loadConfig({
        AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR: '3',
        AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY: '1',
      }).claimDocumentLimits,
    ).toEqual({ perContractYear: 3, bytesPerPartnerDay: 1024 * 1024 })
  })

  it('bounds slow and idle clients by default: 30 s for headers, 30 s for a body, 72 s idle, 1000 connections, 100 from one address', () => {
    expect(loadConfig({}).connections).toEqual({
      headersTimeoutSeconds: 30,
      bodyTimeoutSeconds: 30,
      keepAliveTimeoutSeconds: 72,
      max: 1000,
      maxPerAddress: 100,
    })
    expect(
      loadConfig({
        AMPARO_HEADERS_TIMEOUT_SECONDS: '5',
        AMPARO_BODY_TIMEOUT_SECONDS: '1',
        AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS: '10',
        AMPARO_MAX_CONNECTIONS: '20',
        AMPARO_MAX_CONNECTIONS_PER_ADDRESS: '0',
      }).connections,
    ).toEqual({
      headersTimeoutSeconds: 5,
      bodyTimeoutSeconds: 1,
      keepAliveTimeoutSeconds: 10,
      max: 20,
      maxPerAddress: 0,
    })
  })
})
