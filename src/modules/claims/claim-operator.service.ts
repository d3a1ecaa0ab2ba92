import type { Db, Reader } from '../../db/database.js'
import type { ClaimStatus, FraudSignal } from '../../db/tables/claim.js'
import { NotFoundError } from '../../shared/errors.js'
import { centsToAmount } from '../../shared/money.js'
import { formatTimestamp } from '../../shared/time.js'
import { findClaimViewById } from './claim.repository.js'
import { claimStatusLabel } from './claim.rules.js'
import { claimResourceOf } from './claim.service.js'
import { findClaimIdByNumber, listClaimsForOperator } from './claim-operator.repository.js'

// What the operator reads of claims (`amparo claim list|show`): any partner's, with the fraud
// signals the partner API never shows.

const signalsOf = (json: string) => JSON.parse(json) as FraudSignal[]

/** `SIN-2026-000001` or a bare id. */
export async function claimIdOf(db: Reader, idOrNumber: string): Promise<number> {
  const trimmed = idOrNumber.trim()
  const id = /^\d{1,10}$/.test(trimmed)
    ? Number(trimmed)
    : await findClaimIdByNumber(db, trimmed.toUpperCase())
  if (id === undefined) throw new NotFoundError('Claim')
  return id
}

/** Claims newest first, filtered by status and partner. */
export async function listClaims(
  db: Db,
  filter: { status?: ClaimStatus; partnerId?: number; limit: number },
  timeZone: string,
) {
  const rows = await listClaimsForOperator(db, filter)
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    status: row.status,
    status_label: claimStatusLabel(row.status),
    type: row.type,
    partner: { id: row.partner_id, name: row.partner_name },
    subscription_id: row.subscription_id,
    annual_plan_id: row.annual_plan_id,
    occurred_at: formatTimestamp(row.occurred_at, timeZone),
    lmi: centsToAmount(row.lmi),
    franchise: centsToAmount(row.franchise),
    fraud_signals: signalsOf(row.fraud_signals),
    created_at: formatTimestamp(row.created_at, timeZone),
  }))
}

/** The claim as the partner sees it, with its partner and the fraud signals computed at opening. */
export async function showClaimToOperator(db: Reader, idOrNumber: string, timeZone: string) {
  const view = await findClaimViewById(db, await claimIdOf(db, idOrNumber))
  if (!view) throw new NotFoundError('Claim')
  const claim = await claimResourceOf(db, view, timeZone)
  return { ...claim, partner_id: view.partner_id, fraud_signals: signalsOf(view.fraud_signals) }
}
