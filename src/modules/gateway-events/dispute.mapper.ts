import { DISPUTE_REASON_LABELS, DISPUTE_STATUS_LABELS, labelOf } from '../../shared/labels.js'
import { formatTimestamp } from '../../shared/time.js'
import type { DisputeView } from './dispute.repository.js'
import { reasonOf } from './dispute.rules.js'

/** A dispute as `payment.disputed` and the console show it, times in the service zone. */
export function toDispute(row: DisputeView, timeZone: string) {
  const reason = reasonOf(row.reason)
  const isPlan = row.annual_plan_id !== null
  return {
    id: row.id,
    gateway_dispute_id: row.gateway_dispute_id,
    payment_id: row.payment_id,
    contract: {
      kind: isPlan ? ('annual_plan' as const) : ('subscription' as const),
      id: Number(isPlan ? row.annual_plan_id : row.subscription_id),
      policy_number: (isPlan ? row.plan_policy : row.subscription_policy) ?? null,
    },
    installment_id: row.installment_id,
    amount: Number(row.amount),
    reason,
    reason_label: labelOf(DISPUTE_REASON_LABELS, reason),
    status: row.status,
    status_label: labelOf(DISPUTE_STATUS_LABELS, row.status),
    evidence_due_by: row.evidence_due_by === null ? null : formatTimestamp(row.evidence_due_by, timeZone),
    created_at: formatTimestamp(row.created_at, timeZone),
    updated_at: formatTimestamp(row.updated_at, timeZone),
  }
}
