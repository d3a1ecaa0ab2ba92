import type { Reader } from '../../db/database.js'
import type { ClaimStatus } from '../../db/tables/claim.js'

// What the operator's commands read of claims, across partners.

export interface OperatorClaimFilter {
  status?: ClaimStatus
  partnerId?: number
  limit: number
}

/** Claims newest first, with their partner's name, for `amparo claim list`. */
export async function listClaimsForOperator(db: Reader, { status, partnerId, limit }: OperatorClaimFilter) {
  let query = db
    .selectFrom('claims as cl')
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .select([
      'cl.id',
      'cl.number',
      'cl.status',
      'cl.type',
      'cl.partner_id',
      'p.name as partner_name',
      'cl.subscription_id',
      'cl.annual_plan_id',
      'cl.occurred_at',
      'cl.lmi',
      'cl.franchise',
      'cl.fraud_signals',
      'cl.created_at',
    ])
  if (status !== undefined) query = query.where('cl.status', '=', status)
  if (partnerId !== undefined) query = query.where('cl.partner_id', '=', partnerId)
  return query.orderBy('cl.created_at', 'desc').orderBy('cl.id', 'desc').limit(limit).execute()
}

/** The id of the claim with this number (`SIN-2026-000001`), if any. */
export async function findClaimIdByNumber(db: Reader, number: string): Promise<number | undefined> {
  const row = await db.selectFrom('claims').select('id').where('number', '=', number).executeTakeFirst()
  return row?.id
}
