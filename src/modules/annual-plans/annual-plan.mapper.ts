import { centsToAmount } from '../../shared/money.js'
import { formatTimestamp } from '../../shared/time.js'
import { modelResource } from '../catalog/catalog.mapper.js'
import { certificateLinks } from '../certificates/certificate.rules.js'
import { customerFromView, customerResource } from '../customers/customer.mapper.js'
import type { AnnualPlanRow, AnnualPlanView } from './annual-plan.repository.js'
import { refundAt, statusAt } from './annual-plan.rules.js'
import type { CancellationRow } from './annual-plan-cancellation.repository.js'

export interface ViewContext {
  base: string
  timeZone: string
  /** UTC ISO instant the status is read at. */
  now: string
}

const timestamp = (instant: string | null, timeZone: string) =>
  instant === null ? null : formatTimestamp(instant, timeZone)

export function annualPlanResource(row: AnnualPlanView, { base, timeZone, now }: ViewContext) {
  const status = statusAt(row, now)
  return {
    id: row.id,
    status,
    lmi: centsToAmount(row.lmi),
    premium: centsToAmount(row.premium),
    franchise: centsToAmount(row.franchise),
    policy_number: row.policy_number,
    certificate: certificateLinks(`/annual-plans/${row.id}`, row.certificate_code, status, base),
    plan: { id: row.plan_id, name: row.plan_name, coverages: JSON.parse(row.plan_coverages) as string[] },
    customer: customerResource(customerFromView(row), timeZone),
    model: modelResource(
      { id: row.model_id, name: row.model_name, brand_id: row.brand_id, brand_name: row.brand_name },
      base,
    ),
    imei: row.imei,
    imei_2: row.imei_2,
    is_used: Boolean(row.is_used),
    store_id: row.store_id,
    payment: paymentOf(row),
    paid_at: timestamp(row.paid_at, timeZone),
    paid_with: row.paid_with,
    starts_at: timestamp(row.starts_at, timeZone),
    ends_at: timestamp(row.ends_at, timeZone),
    cancellation: cancellationOf(row, timeZone, now),
    created_at: formatTimestamp(row.created_at, timeZone),
    updated_at: formatTimestamp(row.updated_at, timeZone),
  }
}

function paymentOf(row: AnnualPlanView) {
  if (row.payment_method === null) return null
  const card =
    row.card_brand && row.card_last4 ? { card: { brand: row.card_brand, last4: row.card_last4 } } : {}
  return { method: row.payment_method, installments: row.payment_installments ?? 1, ...card }
}

type RefundStatus = 'none' | 'pending' | 'succeeded' | 'failed' | 'partner'

function cancellationOf(row: AnnualPlanView, timeZone: string, now: string) {
  const { cancellation_protocol: protocol, cancellation_status: status } = row
  if (protocol === null || status === null || row.cancellation_requested_at === null) return null
  // While requested, the refund is what a confirmation now would give; confirmation fixes it. A
  // confirmed refund above 0 without a refund row was paid to the partner, who refunds it.
  const refund = row.cancellation_refund_amount ?? refundAt(row, now, timeZone)
  const refundStatus: RefundStatus | null =
    status === 'requested' ? null : (row.refund_status ?? (refund > 0 ? 'partner' : 'none'))
  return {
    protocol,
    status,
    reason: row.cancellation_reason,
    requested_at: formatTimestamp(row.cancellation_requested_at, timeZone),
    confirmed_at: timestamp(row.cancellation_confirmed_at, timeZone),
    refund_amount: centsToAmount(refund),
    refund_due_date: row.cancellation_refund_due_date,
    refund_status: refundStatus,
    refunded_at: timestamp(row.refunded_at, timeZone),
  }
}

/** The answer to a payment notification; only for a plan that is paid. */
export function paymentNoticeResource(row: AnnualPlanRow, now: string, timeZone: string) {
  const status = statusAt(row, now)
  const { policy_number, paid_at, starts_at, ends_at } = row
  if (
    status === 'awaiting_payment' ||
    status === 'canceled' ||
    !policy_number ||
    !paid_at ||
    !starts_at ||
    !ends_at
  ) {
    throw new Error(`annual plan ${row.id} is not paid`)
  }
  return {
    id: row.id,
    status,
    policy_number,
    paid_at: formatTimestamp(paid_at, timeZone),
    starts_at: formatTimestamp(starts_at, timeZone),
    ends_at: formatTimestamp(ends_at, timeZone),
  }
}

/** An open cancellation request, with the refund a confirmation at `now` would fix. */
export function cancellationRequestResource(
  plan: AnnualPlanRow,
  cancellation: CancellationRow,
  now: string,
  timeZone: string,
) {
  return {
    protocol: cancellation.protocol,
    status: 'requested',
    reason: cancellation.reason,
    refund_amount: centsToAmount(refundAt(plan, now, timeZone)),
    requested_at: formatTimestamp(cancellation.requested_at, timeZone),
  } as const
}
