import type { Reader } from '../../db/database.js'

// What a claim's fraud signals point at (claim-evidence.service.ts): the other claims each look-back
// counted, the documents whose bytes another customer's claim holds too, and those claims'
// partner, contract and customer. Every look-up is by an index (claims_device_idx,
// claims_customer_document_idx, claim_documents_sha256) and at most EVIDENCE_LIMIT long.

/** The most claims a signal shows: the latest ones. */
export const EVIDENCE_LIMIT = 20

/** Claims opened before claim `beforeId` (a lower id) at or after `since` naming one of the device keys. */
export async function deviceClaimIdsBefore(
  db: Reader,
  keys: string[],
  since: string,
  beforeId: number,
): Promise<number[]> {
  if (keys.length === 0) return []
  const rows = await db
    .selectFrom('claims')
    .select('id')
    .where((eb) => eb.or([eb('device_key', 'in', keys), eb('second_device_key', 'in', keys)]))
    .where('created_at', '>=', since)
    .where('id', '<', beforeId)
    .orderBy('id', 'desc')
    .limit(EVIDENCE_LIMIT)
    .execute()
  return rows.map((row) => row.id)
}

/** Claims opened before claim `beforeId` at or after `since` by this customer document. */
export async function customerClaimIdsBefore(
  db: Reader,
  document: string,
  since: string,
  beforeId: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('claims')
    .select('id')
    .where('customer_document', '=', document)
    .where('created_at', '>=', since)
    .where('id', '<', beforeId)
    .orderBy('id', 'desc')
    .limit(EVIDENCE_LIMIT)
    .execute()
  return rows.map((row) => row.id)
}

/**
 * The claim's documents whose bytes were on another customer's claim before they arrived (an
 * earlier document, any partner), each with that other document: newest first.
 */
export async function reusedDocuments(db: Reader, claimId: number, customerDocument: string) {
  return db
    .selectFrom('claim_documents as d')
    .innerJoin('claim_documents as o', (join) =>
      join.onRef('o.sha256', '=', 'd.sha256').onRef('o.id', '<', 'd.id'),
    )
    .innerJoin('claims as oc', 'oc.id', 'o.claim_id')
    .select(['d.id as own_id', 'd.filename as own_filename', 'o.id', 'o.claim_id', 'o.kind', 'o.filename'])
    .where('d.claim_id', '=', claimId)
    .where('oc.customer_document', '<>', customerDocument)
    .orderBy('o.id', 'desc')
    .limit(EVIDENCE_LIMIT)
    .execute()
}

/** These claims with their partner, contract (policy number) and customer. */
export async function claimRefs(db: Reader, ids: number[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('claims as cl')
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .innerJoin('customers as c', 'c.id', 'cl.customer_id')
    .leftJoin('subscriptions as s', 's.id', 'cl.subscription_id')
    .leftJoin('annual_plans as ap', 'ap.id', 'cl.annual_plan_id')
    .select([
      'cl.id',
      'cl.number',
      'cl.status',
      'cl.partner_id',
      'p.name as partner_name',
      'cl.subscription_id',
      'cl.annual_plan_id',
      's.policy_number as subscription_policy_number',
      'ap.policy_number as annual_plan_policy_number',
      'c.name as customer_name',
      'cl.created_at',
    ])
    .where('cl.id', 'in', ids)
    .execute()
}

/** When an annual plan's cover started. */
export async function annualPlanStart(db: Reader, annualPlanId: number): Promise<string | null> {
  const row = await db
    .selectFrom('annual_plans')
    .select('starts_at')
    .where('id', '=', annualPlanId)
    .executeTakeFirst()
  return row?.starts_at ?? null
}
