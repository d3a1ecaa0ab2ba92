import type { Reader, Trx } from '../db/database.js'

// The idempotency_keys rows behind the Idempotency-Key plugin (idempotency.ts): a row is written
// only with its answer, in the transaction of the change it answers for (docs/decisions.md).

export interface KeyOf {
  partnerId: number
  key: string
}

export interface StoredAnswer {
  fingerprint: string
  status: number
  body: string
}

const RETENTION_MS = 24 * 60 * 60 * 1000

/**
 * The answer kept for the key, if any that still counts: one past its 24 h is forgotten, and so is
 * a row without an answer (left by a version that claimed keys before answering).
 */
export async function findAnswer(db: Reader, of: KeyOf, nowMs: number): Promise<StoredAnswer | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'response_status', 'response_body', 'expires_at'])
    .where('partner_id', '=', of.partnerId)
    .where('key', '=', of.key)
    .executeTakeFirst()
  if (!row || row.response_status === null || row.response_body === null) return undefined
  if (Date.parse(row.expires_at) <= nowMs) return undefined
  return { fingerprint: row.fingerprint, status: row.response_status, body: row.response_body }
}

/**
 * Keeps the answer under the key, in the caller's transaction; false when another request's answer
 * holds the key already (PostgreSQL waits here for a concurrent one to commit or roll back). An
 * expired or unanswered row is replaced.
 */
export async function storeAnswer(
  trx: Trx,
  of: KeyOf,
  answer: StoredAnswer,
  nowMs: number,
): Promise<boolean> {
  const now = new Date(nowMs).toISOString()
  const values = {
    fingerprint: answer.fingerprint,
    response_status: answer.status,
    response_body: answer.body,
    created_at: now,
    expires_at: new Date(nowMs + RETENTION_MS).toISOString(),
  }
  const stored = await trx
    .insertInto('idempotency_keys')
    .values({ partner_id: of.partnerId, key: of.key, ...values })
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'key'])
        .doUpdateSet(values)
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', now),
            eb('idempotency_keys.response_status', 'is', null),
          ]),
        ),
    )
    .returning('key')
    .executeTakeFirst()
  return stored !== undefined
}

/** Deletes keys past their 24 h; the worker runs it. Returns how many went. */
export async function deleteExpiredKeys(trx: Trx, now: Date): Promise<number> {
  const result = await trx
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', now.toISOString())
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
