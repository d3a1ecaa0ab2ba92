import { createHmac } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Db, Trx } from '../db/database.js'
import { isDatabaseUnavailable } from '../db/errors.js'
import { retryingTransaction } from '../db/transaction.js'
import { AppError, ValidationError } from '../shared/errors.js'
import { documentOnWrites } from '../shared/http-schemas.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request holds an Idempotency-Key and must store its response. */
    idempotencyClaim: Claim | null
  }
}

interface Claim {
  partnerId: number
  key: string
}

const RETENTION_MS = 24 * 60 * 60 * 1000
/** A request still "in flight" after this long died without answering; its key may be retried. */
const ABANDONED_MS = 5 * 60 * 1000
const KEY = /^[\x21-\x7E]{1,255}$/

type Outcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' }

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
    documentOnWrites(app, [409, 422], {
      'Idempotency-Key': {
        type: 'string',
        pattern: KEY.source,
        description:
          'Optional, 1 to 255 visible ASCII characters. The first response to a key is kept for 24 h and replayed with `Idempotent-Replayed: true`; the same key with another request answers 422, and 409 while the first is still in progress.',
      },
    })

    app.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST' && request.method !== 'PUT') return
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
        throw new AppError(409, 'A request with this Idempotency-Key is still in progress.')
      if (outcome.kind === 'mismatch') {
        throw ValidationError.field(
          'Idempotency-Key',
          'This Idempotency-Key was already used with another request.',
        )
      }
      return reply
        .code(outcome.status)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(outcome.body)
    })

    app.addHook('onSend', async (request, reply, payload) => {
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
 * JSON with object keys sorted, so `{a,b}` and `{b,a}` are one request. Built with a work list
 * rather than recursion: a body nested thousands deep must not overflow the stack.
 */
function canonicalJson(value: unknown): string {
  let json = ''
  // Values still to write, last first; a Text is written as is.
  const todo: unknown[] = [value]
  while (todo.length > 0) {
    const item = todo.pop()
    if (item instanceof Text) {
      json += item.text
    } else if (Array.isArray(item)) {
      todo.push(new Text(']'))
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push(item[i])
        if (i > 0) todo.push(new Text(','))
      }
      todo.push(new Text('['))
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>).sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      )
      todo.push(new Text('}'))
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, entry] = entries[i] as [string, unknown]
        todo.push(entry, new Text(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`))
      }
      todo.push(new Text('{'))
    } else {
      json += JSON.stringify(item ?? null)
    }
  }
  return json
}

class Text {
  constructor(readonly text: string) {}
}

/** Claims the key, or tells how it is taken; `prints` are the request's fingerprints, current first. */
async function claimKey(trx: Trx, claim: Claim, prints: string[], nowMs: number): Promise<Outcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await trx
      .insertInto('idempotency_keys')
      .values({
        partner_id: claim.partnerId,
        key: claim.key,
        fingerprint: prints[0] as string,
        response_status: null,
        response_body: null,
        created_at: new Date(nowMs).toISOString(),
        expires_at: new Date(nowMs + RETENTION_MS).toISOString(),
      })
      .onConflict((oc) => oc.columns(['partner_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst()
    if (inserted) return { kind: 'claimed' }

    const row = await trx
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'response_status', 'response_body', 'created_at', 'expires_at'])
      .where('partner_id', '=', claim.partnerId)
      .where('key', '=', claim.key)
      .executeTakeFirst()
    if (!row) continue
    const expired = Date.parse(row.expires_at) <= nowMs
    const abandoned = row.response_status === null && Date.parse(row.created_at) <= nowMs - ABANDONED_MS
    if (expired || abandoned) {
      // Only the row we saw: a concurrent retry that already replaced it keeps its claim.
      await trx
        .deleteFrom('idempotency_keys')
        .where('partner_id', '=', claim.partnerId)
        .where('key', '=', claim.key)
        .where('created_at', '=', row.created_at)
        .execute()
      continue
    }
    if (!prints.includes(row.fingerprint)) return { kind: 'mismatch' }
    if (row.response_status === null || row.response_body === null) return { kind: 'in_flight' }
    return { kind: 'replay', status: row.response_status, body: row.response_body }
  }
  return { kind: 'in_flight' }
}

async function complete(trx: Trx, claim: Claim, status: number, body: string) {
  await trx
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('partner_id', '=', claim.partnerId)
    .where('key', '=', claim.key)
    .execute()
}

async function release(trx: Trx, claim: Claim) {
  await trx
    .deleteFrom('idempotency_keys')
    .where('partner_id', '=', claim.partnerId)
    .where('key', '=', claim.key)
    .where('response_status', 'is', null)
    .execute()
}

/** Deletes keys past their 24 h; the worker runs it. Returns how many went. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const result = await retryingTransaction(db, (trx) =>
    trx.deleteFrom('idempotency_keys').where('expires_at', '<=', now.toISOString()).executeTakeFirst(),
  )
  return Number(result.numDeletedRows)
}
