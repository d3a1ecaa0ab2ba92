import { createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Db } from '../db/database.js'
import { isDatabaseUnavailable } from '../db/errors.js'
import { retryingTransaction } from '../db/transaction.js'
import { documentOnWrites, hookList, isWrite } from '../http/route-documentation.js'
import { canonicalJson } from '../shared/canonical-json.js'
import { ValidationError } from '../shared/errors.js'
import { errorReplayed, errorToKeep } from './errors.js'
import {
  deleteExpiredKeys,
  findAnswer,
  type KeyOf,
  type StoredAnswer,
  storeAnswer,
} from './idempotency.repository.js'

/** A request's Idempotency-Key that holds no answer yet. */
export interface PendingKey extends KeyOf {
  /** The request's fingerprints, under the current signing secret first. */
  prints: string[]
  /** Its answer is stored (with the change, by the unit of work): nothing is left to store. */
  settled: boolean
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request carries an Idempotency-Key whose answer is still to be stored. */
    idempotency: PendingKey | null
  }
  interface FastifyInstance {
    /**
     * For a route that reads its body itself (`config.idempotencyAfterBody`, a streamed upload):
     * checks the request's Idempotency-Key once the body is read, fingerprinted by `body`, what
     * identifies the request (a file's hash, not the bytes or the form's boundaries). True when the
     * kept answer was replayed: the handler has nothing left to do.
     */
    checkIdempotencyKey(request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<boolean>
  }
  interface FastifyContextConfig {
    /** The handler calls `checkIdempotencyKey` itself once it has read the body. */
    idempotencyAfterBody?: boolean
  }
}

const KEY = /^[\x21-\x7E]{1,255}$/

/**
 * `Idempotency-Key` on POST, PUT and PATCH (README, "Safe retries and limits"): the first answer is
 * kept 24 h per partner and key and replayed with `Idempotent-Replayed: true`; the same key with
 * another request → 422. No claim is committed ahead of the work: a route's write transaction (the
 * unit of work, unit-of-work.ts) stores the answer with the change, and a concurrent request with
 * the key waits for it there and replays it. An answer that changed nothing (a refusal) or came
 * without the unit of work is stored after it is sent, here. Registered after authentication: keys
 * belong to a partner.
 */
export const idempotency = fp<{ secrets: string[] }>(
  async (app, { secrets }) => {
    const keys = fingerprintKeys(secrets)
    app.decorateRequest('idempotency', null)
    // Any POST or PUT takes the header and may answer this, whatever the route itself refuses.
    documentOnWrites(app, [422, 'idempotency_key_reused'], {
      'Idempotency-Key': {
        type: 'string',
        pattern: KEY.source,
        description:
          'Optional, 1 to 255 visible ASCII characters. The first response to a key is kept for 24 h and replayed with `Idempotent-Replayed: true`; the same key with another request answers 422. A retry sent while the first is still being processed waits for it and gets its answer.',
      },
    })

    const checkIt = async (request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<boolean> => {
      const key = request.headers['idempotency-key']
      if (key === undefined) return false
      if (typeof key !== 'string' || !KEY.test(key)) {
        throw ValidationError.field(
          'Idempotency-Key',
          'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
        )
      }
      const prints = keys.map((k) => fingerprint(k, request.method, request.url, body))
      const pending = { partnerId: request.partner.partnerId, key, prints, settled: false }
      const stored = await findAnswer(app.db, pending, app.clock.now().getTime())
      if (stored) {
        replay(request, reply, pending, stored)
        return true
      }
      request.idempotency = pending
      return false
    }
    const checkBody = async (request: FastifyRequest, reply: FastifyReply) => {
      if (await checkIt(request, reply, request.body)) return reply
    }
    app.decorate('checkIdempotencyKey', checkIt)

    const storeIt = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const pending = request.idempotency
      if (!pending || pending.settled) return payload
      pending.settled = true
      // A server fault is not an answer worth replaying, nor a card charge in progress (409): a
      // retry must be able to succeed.
      if (reply.statusCode >= 500 || reply.statusCode === 409 || typeof payload !== 'string') return payload
      const body = reply.statusCode >= 400 ? errorToKeep(request, payload) : payload
      const answer = { fingerprint: pending.prints[0] as string, status: reply.statusCode, body }
      const nowMs = app.clock.now().getTime()
      let first: StoredAnswer | undefined
      try {
        first = await retryingTransaction(app.db, async (trx) =>
          (await storeAnswer(trx, pending, answer, nowMs)) ? undefined : findAnswer(trx, pending, nowMs),
        )
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error
        // What is answered here changed nothing the unit of work stores: a retry may run again.
        request.log.warn({ err: error }, 'idempotency answer not stored')
        return payload
      }
      // A concurrent request with the key answered first (this one was refused for what it did,
      // a duplicate document, a paid installment): its answer is the key's.
      if (!first || !pending.prints.includes(first.fingerprint)) return payload
      reply.code(first.status).header('idempotent-replayed', 'true')
      return first.status >= 400 ? errorReplayed(first.body, request) : first.body
    }

    // Only writes take a key, so only their routes carry the two hooks: a GET runs neither
    // (two async hooks on every read otherwise, each returning at once).
    app.addHook('onRoute', (route) => {
      if (!isWrite(route.method)) return
      if (!route.config?.idempotencyAfterBody) route.preHandler = [...hookList(route.preHandler), checkBody]
      route.onSend = [...hookList(route.onSend), storeIt]
    })
  },
  { name: 'idempotency', dependencies: ['authenticated'] },
)

/** Answers the kept answer again, or 422 when the key was used with another request. */
function replay(request: FastifyRequest, reply: FastifyReply, pending: PendingKey, stored: StoredAnswer) {
  if (!pending.prints.includes(stored.fingerprint)) {
    throw new ValidationError(
      { 'Idempotency-Key': ['This Idempotency-Key was already used with another request.'] },
      'idempotency_key_reused',
    )
  }
  return reply
    .code(stored.status)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(stored.status >= 400 ? errorReplayed(stored.body, request) : stored.body)
}

/** The answer another request with this key committed (the unit of work lost the race to it). */
export async function replayStored(request: FastifyRequest, reply: FastifyReply, pending: PendingKey) {
  const stored = await findAnswer(request.server.db, pending, request.server.clock.now().getTime())
  if (!stored) throw new Error('an idempotency key was taken, yet holds no answer')
  pending.settled = true
  return replay(request, reply, pending, stored)
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

/** The worker's purge of keys past their 24 h; answers how many went. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<number> {
  return retryingTransaction(db, (trx) => deleteExpiredKeys(trx, now))
}
