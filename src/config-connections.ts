import { type Static, Type } from 'typebox'
import { ConfigError, parseTrustProxy } from './config-values.js'

// The connections the service opens (its database, the shared rate-limit store) and those it
// accepts from clients (README, Configuration): read here, composed by config.ts.

export const ConnectionEnv = Type.Object({
  DATABASE_URL: Type.String({ default: '' }),
  AMPARO_SQLITE_FILE: Type.String({ default: './data/amparo.sqlite' }),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  REDIS_URL: Type.String({ default: '' }),
  AMPARO_TRUST_PROXY: Type.String({ default: '' }),
  AMPARO_HEADERS_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 30 }),
  AMPARO_BODY_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 30 }),
  AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS: Type.Integer({ minimum: 2, maximum: 72, default: 72 }),
  AMPARO_MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 100_000, default: 1000 }),
  AMPARO_MAX_CONNECTIONS_PER_ADDRESS: Type.Integer({ minimum: 0, maximum: 100_000, default: 100 }),
})

/** PostgreSQL when DATABASE_URL is set, else the SQLite file. */
export type DatabaseSettings =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; poolMax: number }

/**
 * Slow and idle clients (README, Configuration): seconds for a request's headers to arrive, then for its
 * body (408 and closed past either), seconds an idle kept-alive connection stays open, and the
 * open connections one process accepts, in all and from one address (0: no cap; the trusted
 * proxies' addresses are not capped).
 */
export interface ConnectionLimits {
  headersTimeoutSeconds: number
  bodyTimeoutSeconds: number
  keepAliveTimeoutSeconds: number
  max: number
  maxPerAddress: number
}

export interface ConnectionSettings {
  database: DatabaseSettings
  /** Shared rate-limit counters for several API processes; empty → in memory. */
  redisUrl: string
  /**
   * Which proxies' `X-Forwarded-For` names the client (Fastify's trustProxy): false (default, the
   * socket's address is the client's), true (any), or the proxies' addresses / CIDR ranges.
   */
  trustProxy: boolean | string[]
  connections: ConnectionLimits
}

export function connectionSettings(env: Static<typeof ConnectionEnv>): ConnectionSettings {
  if (env.REDIS_URL && !/^rediss?:\/\//.test(env.REDIS_URL)) {
    throw new ConfigError('Invalid REDIS_URL: expected redis://host:port')
  }
  const url = env.DATABASE_URL
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('Invalid DATABASE_URL: only postgres:// addresses are supported')
  }
  return {
    database: url
      ? { kind: 'postgres', url, poolMax: env.DB_POOL_MAX }
      : { kind: 'sqlite', file: env.AMPARO_SQLITE_FILE },
    redisUrl: env.REDIS_URL,
    trustProxy: parseTrustProxy(env.AMPARO_TRUST_PROXY),
    connections: {
      headersTimeoutSeconds: env.AMPARO_HEADERS_TIMEOUT_SECONDS,
      bodyTimeoutSeconds: env.AMPARO_BODY_TIMEOUT_SECONDS,
      keepAliveTimeoutSeconds: env.AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS,
      max: env.AMPARO_MAX_CONNECTIONS,
      maxPerAddress: env.AMPARO_MAX_CONNECTIONS_PER_ADDRESS,
    },
  }
}
