import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { documentRateLimit } from '../http/route-documentation.js'
import { AppError } from '../shared/errors.js'
import { type LoginAccountOf, limitFailedLogins, loginAccount } from './login-failures.js'

const MINUTE = 60_000

interface Options {
  max: number
  /** Counters shared by every API process; in memory when absent. */
  redis: Redis | null
}

function common({ max, redis }: Options) {
  return {
    max,
    timeWindow: MINUTE,
    // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and Retry-After.
    enableDraftSpec: true,
    ...(redis && { redis, nameSpace: 'amparo-rl:' }),
    // A Redis outage must not take the API down with it: requests pass uncounted meanwhile.
    skipOnError: true,
    errorResponseBuilder: (_request: FastifyRequest, context: { after: string }) =>
      new AppError('rate_limited', `Too many requests. Retry in ${context.after}.`),
  }
}

/** Per partner, on every route of the scope it is registered in (after authentication). */
export async function partnerRateLimit(app: FastifyInstance, options: Options) {
  documentRateLimit(app)
  await app.register(rateLimit, {
    ...common(options),
    global: true,
    keyGenerator: (request) => `partner:${request.partner.partnerId}`,
  })
}

/** An address may try this many times the per-client login limit, over every client id. */
export const LOGIN_ADDRESS_FACTOR = 5

/**
 * Stricter on login, per client id (or e-mail) and address, so guessing one partner's secret
 * is slow without letting one noisy address lock everyone else out. Counted once the body is read.
 * Per address alone too, at LOGIN_ADDRESS_FACTOR × that, counted before the body is read (CONTRACT
 * §18): changing the client id on every try would otherwise never be limited, and each try costs a
 * deliberately slow secret check. (Its headers are sent only once it is exceeded: the per-client
 * ones are the ones a client reads.) Then failures per account, whatever the address: the account
 * `accountOf` names (the console's: the operator signing in, whether the password or the code failed).
 */
export async function loginRateLimit(
  app: FastifyInstance,
  options: Options & { accountOf?: LoginAccountOf },
) {
  documentRateLimit(app)
  await app.register(rateLimit, {
    ...common({ ...options, max: options.max * LOGIN_ADDRESS_FACTOR }),
    global: true,
    hook: 'onRequest',
    keyGenerator: (request) => `login-address:${request.ip}`,
    addHeadersOnExceeding: {
      'ratelimit-limit': false,
      'ratelimit-remaining': false,
      'ratelimit-reset': false,
    },
  })
  await app.register(rateLimit, {
    ...common(options),
    global: true,
    hook: 'preHandler',
    keyGenerator: (request) => `login:${loginAccount(request) ?? '-'}:${request.ip}`,
  })
  limitFailedLogins(app, options.redis, options.accountOf)
}

/**
 * The portal's sign-in (a code asked for, a code or a link used) per client address: `max` a minute
 * over those routes, counted before the body is read. The hourly limits per document and per e-mail
 * address do not see one address asking codes for many documents, or trying codes on many.
 */
export async function portalSignInRateLimit(app: FastifyInstance, options: Options) {
  await app.register(rateLimit, {
    ...common(options),
    global: true,
    hook: 'onRequest',
    keyGenerator: (request) => `portal-sign-in:${request.ip}`,
    errorResponseBuilder: () =>
      new AppError('rate_limited', 'Too many sign-in attempts from this address: try again in a minute.'),
  })
}

/**
 * Redeliveries of one event a partner may ask in an hour (README, Webhooks): each is one POST to
 * every endpoint that receives the event, so without a bound 200 calls made 2,001 POSTs to one
 * URL. For the routes of the scope it is registered in, beside the partner's own limit (a second
 * registration of the plugin counts on its own).
 */
export const MAX_REDELIVERIES_PER_HOUR = 10

export async function redeliveryRateLimit(app: FastifyInstance, { redis }: Pick<Options, 'redis'>) {
  const silent = { 'ratelimit-limit': false, 'ratelimit-remaining': false, 'ratelimit-reset': false }
  await app.register(rateLimit, {
    ...common({ max: MAX_REDELIVERIES_PER_HOUR, redis }),
    timeWindow: 60 * MINUTE,
    global: true,
    hook: 'preHandler',
    keyGenerator: (request) =>
      `redeliver:${request.partner.partnerId}:${(request.params as { id?: string }).id}`,
    // The partner's RateLimit-* headers stay; this limit speaks only once exceeded (Retry-After).
    addHeadersOnExceeding: silent,
    addHeaders: { ...silent, 'retry-after': true },
    errorResponseBuilder: (_request: FastifyRequest, context: { after: string }) =>
      new AppError(
        'rate_limited',
        `This event was delivered again ${MAX_REDELIVERIES_PER_HOUR} times in the last hour. Retry in ${context.after}.`,
      ),
  })
}
