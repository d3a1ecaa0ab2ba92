import type { Db } from '../../db/database.js'
import type { DisputeStatus } from '../../db/tables/payment-code.js'
import { reasonOf } from '../gateway-events/dispute.rules.js'
import { disputeRows } from '../gateway-events/dispute.service.js'
import { pageOf } from './console.schemas.js'

// The Disputas screen (README, Operator console): chargebacks Stripe reported, the nearest evidence
// deadline first.

const iso = (instant: string | null) => (instant === null ? null : new Date(instant).toISOString())

export async function disputePage(
  db: Db,
  status: DisputeStatus | undefined,
  page: { page: number; perPage: number },
) {
  const { rows, total } = await disputeRows(db, status, {
    offset: (page.page - 1) * page.perPage,
    limit: page.perPage,
  })
  const data = rows.map((r) => {
    const isPlan = r.annual_plan_id !== null
    return {
      id: r.id,
      gateway_dispute_id: r.gateway_dispute_id,
      partner: { id: r.partner_id, name: r.partner_name },
      payment: {
        id: r.payment_id,
        installment_number: r.installment_number === null ? null : Number(r.installment_number),
        gateway_payment_id: r.payment_reference,
        paid_at: iso(r.paid_at) as string,
      },
      contract: {
        kind: isPlan ? ('annual_plan' as const) : ('subscription' as const),
        id: Number(isPlan ? r.annual_plan_id : r.subscription_id),
        policy_number: (isPlan ? r.plan_policy : r.subscription_policy) ?? null,
      },
      amount_cents: Number(r.amount),
      reason: reasonOf(r.reason),
      status: r.status,
      evidence_due_by: iso(r.evidence_due_by),
      created_at: iso(r.created_at) as string,
    }
  })
  return pageOf(data, total, page.page, page.perPage)
}
