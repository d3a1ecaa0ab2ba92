import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { readLoginCredentials } from '../modules/auth/login-credentials.js'
import { AppError } from '../shared/errors.js'

/**
 * After this many failed logins of one account from one address in the window, that address's
 * logins of it answer 429; after MAX_FAILED_LOGINS_PER_ACCOUNT from any addresses, the logins of
 * every address that failed on it do too (README, Rate limits), except from an address that logged
 * in to it within KNOWN_ADDRESS_MS. An outsider who knows a client id thus locks it only for the
 * addresses it fails from: the partner's own, and a new one that has not failed, still log in
 * (docs/decisions.md, Authentication).
 */
export const MAX_FAILED_LOGINS = 10
export const MAX_FAILED_LOGINS_PER_ACCOUNT = 100
export const FAILED_LOGIN_WINDOW_MS = 15 * 60_000
export const KNOWN_ADDRESS_MS = 30 * 86_400_000

/** Whose failures a login counts against: an account key, or null when it names none. */
export type LoginAccountOf = (request: FastifyRequest) => string | null | Promise<string | null>

/** The account a login names (client id, or e-mail without case); null when it names none. */
export function loginAccount(request: FastifyRequest): string | null {
  try {
    const credentials = readLoginCredentials((request.body ?? {}) as object, request.headers)
    if (credentials.kind === 'client') return `client:${credentials.clientId}`
    if (credentials.kind === 'user') return `user:${credentials.email.toLowerCase()}`
  } catch {
    // Missing fields: the handler answers 422.
  }
  return null
}

/** Attempts of one account in its current window; shared by every API process through Redis. */
interface AttemptCounter {
  /** Counts one more attempt: the count so far in the window, and the milliseconds it has left. */
  add(account: string): Promise<{ count: number; resetInMs: number }>
  /** Takes back an attempt that did not fail. */
  remove(account: string): Promise<void>
}

/** The addresses that logged in to an account lately (`account|address`); through Redis too. */
interface KnownAddresses {
  has(key: string): Promise<boolean>
  add(key: string): Promise<void>
}

/**
 * Every attempt is counted before its secret is checked, per account and address and per account,
 * and taken back unless it answered 401: concurrent guesses cannot slip through between a check
 * and the count of a failure, and a refused attempt (429, no secret checked) is no failure.
 * Successes do not reset the counts: an attacker would otherwise get ten more guesses at each real
 * login. A Redis outage lets logins through uncounted, as the other limits do.
 */
export function limitFailedLogins(
  app: FastifyInstance,
  redis: Redis | null,
  accountOf: LoginAccountOf = loginAccount,
): void {
  const attempts = redis ? redisCounter(redis) : memoryCounter()
  const known = redis ? redisKnownAddresses(redis) : memoryKnownAddresses()
  const counted = new WeakMap<FastifyRequest, string[]>()
  app.addHook('preHandler', async (request, reply) => {
    const account = await accountOf(request)
    if (!account) return
    const keys = [`${account}|${request.ip}`, account]
    const [fromHere, fromAll] = await Promise.all(keys.map((key) => attempts.add(key))).catch(() => [])
    if (!fromHere || !fromAll) return
    counted.set(request, keys)
    // An earlier attempt of this address in the window (failed, or under way at once).
    const failedHere = fromHere.count > 1
    const lockedForAll =
      fromAll.count > MAX_FAILED_LOGINS_PER_ACCOUNT &&
      failedHere &&
      !(await known.has(keys[0] as string).catch(() => false))
    const refused = [fromHere.count > MAX_FAILED_LOGINS && fromHere, lockedForAll && fromAll].filter(
      (window) => window !== false,
    )
    if (refused.length === 0) return
    const resetInMs = Math.max(...refused.map((window) => window.resetInMs))
    const minutes = Math.ceil(resetInMs / 60_000)
    reply.header('retry-after', Math.ceil(resetInMs / 1000))
    throw new AppError(
      'rate_limited',
      `Too many failed logins for this account. Retry in ${minutes} minute${minutes > 1 ? 's' : ''}.`,
    )
  })
  app.addHook('onResponse', async (request, reply) => {
    const keys = counted.get(request)
    if (keys && reply.statusCode !== 401)
      await Promise.all(keys.map((key) => attempts.remove(key))).catch(() => {})
    if (keys && reply.statusCode >= 200 && reply.statusCode < 300)
      await known.add(keys[0] as string).catch(() => {})
  })
}

// Keys of unknown accounts are counted too (a 429 must not tell which exist): in memory, past
// this many the oldest go first, so that made-up ids cannot fill the process's memory.
const MAX_ACCOUNTS_IN_MEMORY = 10_000

function memoryCounter(): AttemptCounter {
  const windows = new Map<string, { count: number; resetAt: number }>()
  return {
    async add(account) {
      const now = Date.now()
      let window = windows.get(account)
      if (!window || window.resetAt <= now) {
        windows.delete(account)
        if (windows.size >= MAX_ACCOUNTS_IN_MEMORY) forgetOldest(windows, now)
        window = { count: 0, resetAt: now + FAILED_LOGIN_WINDOW_MS }
        windows.set(account, window)
      }
      window.count += 1
      return { count: window.count, resetInMs: window.resetAt - now }
    },
    async remove(account) {
      const window = windows.get(account)
      if (window && window.count > 0) window.count -= 1
    },
  }
}

function memoryKnownAddresses(): KnownAddresses {
  const until = new Map<string, { resetAt: number }>()
  return {
    async has(key) {
      return (until.get(key)?.resetAt ?? 0) > Date.now()
    },
    async add(key) {
      const now = Date.now()
      until.delete(key)
      if (until.size >= MAX_ACCOUNTS_IN_MEMORY) forgetOldest(until, now)
      until.set(key, { resetAt: now + KNOWN_ADDRESS_MS })
    },
  }
}

/** The expired windows, and if that is not enough the oldest tenth (a Map iterates oldest first). */
function forgetOldest(windows: Map<string, { resetAt: number }>, now: number): void {
  for (const [account, { resetAt }] of windows) if (resetAt <= now) windows.delete(account)
  let excess = windows.size - MAX_ACCOUNTS_IN_MEMORY * 0.9
  for (const account of windows.keys()) {
    if (excess-- <= 0) break
    windows.delete(account)
  }
}

// Under the rate limits' own prefix. DECR only a live key: on an expired one it would create a
// key without expiry.
const KEY_PREFIX = 'amparo-rl:login-failures:'
const DECREMENT_LIVE = "if redis.call('exists', KEYS[1]) == 1 then redis.call('decr', KEYS[1]) end"

function redisCounter(redis: Redis): AttemptCounter {
  return {
    async add(account) {
      const key = KEY_PREFIX + account
      const replies = await redis
        .multi()
        .set(key, 0, 'PX', FAILED_LOGIN_WINDOW_MS, 'NX')
        .incr(key)
        .pttl(key)
        .exec()
      const [, [incrError, count] = [], [ttlError, ttl] = []] = replies ?? []
      if (!replies || incrError || ttlError) throw incrError ?? ttlError ?? new Error('transaction aborted')
      return { count: Number(count), resetInMs: Math.max(Number(ttl), 0) }
    },
    async remove(account) {
      await redis.eval(DECREMENT_LIVE, 1, KEY_PREFIX + account)
    },
  }
}

const KNOWN_PREFIX = 'amparo-rl:login-known:'

function redisKnownAddresses(redis: Redis): KnownAddresses {
  return {
    async has(key) {
      return (await redis.exists(KNOWN_PREFIX + key)) === 1
    },
    async add(key) {
      await redis.set(KNOWN_PREFIX + key, 1, 'PX', KNOWN_ADDRESS_MS)
    },
  }
}
