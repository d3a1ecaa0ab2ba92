import { createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDatabaseUnavailable } from '../db/errors.js'
import { retryingTransaction } from '../db/transaction.js'
import { documentOnWrites, hookList, isWrite } from '../http/http-schemas.js'
import { canonicalJson } from '../shared/canonical-json.js'
import { AppError, ValidationError } from '../shared/errors.js'
import { ABANDONED_MS, type Claim, claimKey, complete, release } from './idempotency.repository.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request holds an Idempotency-Key and must store its response. */
    idempotencyClaim: Claim | null
  }
}

const KEY = /^[\x21-\x7E]{1,255}$/

/**
 * `Idempotency-Key` on POST and PUT (CONTRACT §12): the first response is kept 24 h per partner
 * and key and replayed with `Idempotent-Replayed: true`; the same key with another request → 422;
 * while the first is in flight → 409. The key's row in the database is the lock, so this holds
 * across processes. Registered after authentication: keys belong to a partner.
 */
export const idempotency = fp<{ secrets: string[] }>(
  async (app, { secrets }) => {
    const keys = fingerprintKeys(secrets)
    app.decorateRequest('idempotencyClaim', null)
    // Any POST or PUT takes the header and may answer these, whatever the route itself refuses.
    documentOnWrites(app, [409, 422, 'idempotency_key_reused'], {
      'Idempotency-Key': {
        type: 'string',
        pattern: KEY.source,
        description:
          'Optional, 1 to 255 visible ASCII characters. The first response to a key is kept for 24 h and replayed with `Idempotent-Replayed: true`; the same key with another request answers 422, and 409 while the first is still in progress.',
      },
    })

    const claimIt = async (request: FastifyRequest, reply: FastifyReply) => {
      const key = request.headers['idempotency-key']
      if (key === undefined) return
      if (typeof key !== 'string' || !KEY.test(key)) {
        throw ValidationError.field(
          'Idempotency-Key',
          'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
        )
      }
      const claim = { partnerId: request.partner.partnerId, key }
      const prints = keys.map((k) => fingerprint(k, request.method, request.url, request.body))
      const nowMs = app.clock.now().getTime()
      const outcome = await retryingTransaction(app.db, (trx) => claimKey(trx, claim, prints, nowMs))
      if (outcome.kind === 'claimed') {
        request.idempotencyClaim = claim
        return
      }
      if (outcome.kind === 'in_flight')
        throw new AppError(
          'idempotency_key_in_flight',
          'A request with this Idempotency-Key is still in progress.',
        )
      if (outcome.kind === 'mismatch') {
        throw new ValidationError(
          { 'Idempotency-Key': ['This Idempotency-Key was already used with another request.'] },
          'idempotency_key_reused',
        )
      }
      return reply
        .code(outcome.status)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(outcome.status >= 400 ? withRequestId(outcome.body, request.id) : outcome.body)
    }

    const settleIt = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const claim = request.idempotencyClaim
      if (!claim) return payload
      request.idempotencyClaim = null
      // A server fault is not an answer worth replaying, nor a conflict with another request in
      // progress (a card charge holding the installment or plan): CONTRACT §12 keeps 409 for "the
      // first request with this key is in flight", and a retry must be able to succeed. Free the key.
      if (reply.statusCode >= 500 || reply.statusCode === 409 || typeof payload !== 'string')
        await settle(request, () => retryingTransaction(app.db, (trx) => release(trx, claim)))
      else {
        const status = reply.statusCode
        await settle(request, () =>
          retryingTransaction(app.db, (trx) => complete(trx, claim, status, payload)),
        )
      }
      return payload
    }

    // Only writes take a key, so only their routes carry the two hooks: a GET runs neither
    // (two async hooks on every read otherwise, each returning at once).
    app.addHook('onRoute', (route) => {
      if (!isWrite(route.method)) return
      route.preHandler = [...hookList(route.preHandler), claimIt]
      route.onSend = [...hookList(route.onSend), settleIt]
    })
  },
  { name: 'idempotency', dependencies: ['authenticated'] },
)

/**
 * Stores the answer or frees the key; when the database cannot be reached just then (an outage),
 * again in the background until it can, while the answer goes out: a write that committed still
 * answers its 201, and a retry of the key gets it replayed (or runs again) instead of 409 until
 * the claim is abandoned, or a second run after that.
 */
async function settle(request: FastifyRequest, work: () => Promise<void>): Promise<void> {
  try {
    await work()
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error
    request.log.warn({ err: error }, 'idempotency key not settled yet; retrying in the background')
    // Well before anyone may take the claim over as abandoned.
    const giveUpAt = Date.now() + ABANDONED_MS / 2
    const retry = (delayMs: number) =>
      setTimeout(() => {
        work().catch(() => {
          if (Date.now() < giveUpAt) retry(Math.min(delayMs * 2, 10_000))
        })
      }, delayMs).unref()
    retry(250)
  }
}

/**
 * The keys a request's fingerprint is computed under, one per token signing secret (the first
 * signs): bodies carry card numbers and security codes, so a plain hash of one stored in the
 * database could be brute-forced back into the card (a number is ≈ 10^10 guesses given its
 * brand and last four digits). Keyed with a secret kept out of the database in production
 * (AMPARO_JWT_KEYS), each derived for this use only; fingerprints under a rotated-out key still
 * match while it verifies tokens.
 */
export function fingerprintKeys(secrets: string[]): Buffer[] {
  return secrets.map((secret) =>
    createHmac('sha256', secret).update('amparo idempotency fingerprint').digest(),
  )
}

export function fingerprint(key: Buffer, method: string, url: string, body: unknown): string {
  return createHmac('sha256', key)
    .update(`${method} ${url}\n${canonicalJson(body)}`)
    .digest('hex')
}

/**
 * A kept error body as replayed: its `request_id` is this request's, like the X-Request-Id header
 * (CONTRACT §13); the logs tie the key to the first request.
 */
function withRequestId(body: string, requestId: string): string {
  const parsed = JSON.parse(body) as Record<string, unknown>
  return 'request_id' in parsed ? JSON.stringify({ ...parsed, request_id: requestId }) : body
}
