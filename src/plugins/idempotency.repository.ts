import type { Db, Trx } from '../db/database.js'
import { retryingTransaction } from '../db/transaction.js'

// The idempotency_keys rows behind the Idempotency-Key plugin (idempotency.ts): the row is the lock.

export interface Claim {
  partnerId: number
  key: string
}

const RETENTION_MS = 24 * 60 * 60 * 1000
/** A request still "in flight" after this long died without answering; its key may be retried. */
export const ABANDONED_MS = 5 * 60 * 1000

export type Outcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' }

/** Claims the key, or tells how it is taken; `prints` are the request's fingerprints, current first. */
export async function claimKey(trx: Trx, claim: Claim, prints: string[], nowMs: number): Promise<Outcome> {
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

export async function complete(trx: Trx, claim: Claim, status: number, body: string) {
  await trx
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('partner_id', '=', claim.partnerId)
    .where('key', '=', claim.key)
    .execute()
}

export async function release(trx: Trx, claim: Claim) {
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
