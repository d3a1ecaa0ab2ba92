import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { documentRateLimit } from '../http/http-schemas.js'
import { readLoginCredentials } from '../modules/auth/login-credentials.js'
import { AppError } from '../shared/errors.js'

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
 * Per address alone too, at LOGIN_ADDRESS_FACTOR × that: changing the client id on every try
 * would otherwise never be limited, and each try costs a deliberately slow secret check. (Its
 * headers are sent only once it is exceeded: the per-client ones are the ones a client reads.)
 */
export async function loginRateLimit(app: FastifyInstance, options: Options) {
  documentRateLimit(app)
  await app.register(rateLimit, {
    ...common(options),
    global: true,
    hook: 'preHandler',
    keyGenerator: (request) => `login:${loginSubject(request)}:${request.ip}`,
  })
  await app.register(rateLimit, {
    ...common({ ...options, max: options.max * LOGIN_ADDRESS_FACTOR }),
    global: true,
    hook: 'preHandler',
    keyGenerator: (request) => `login-address:${request.ip}`,
    addHeadersOnExceeding: {
      'ratelimit-limit': false,
      'ratelimit-remaining': false,
      'ratelimit-reset': false,
    },
  })
}

function loginSubject(request: FastifyRequest): string {
  try {
    const credentials = readLoginCredentials((request.body ?? {}) as object, request.headers)
    if (credentials.kind === 'client') return credentials.clientId
    if (credentials.kind === 'user') return credentials.email.toLowerCase()
  } catch {
    // Missing fields: the handler answers 422; count it under the address alone.
  }
  return '-'
}
