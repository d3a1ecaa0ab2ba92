import { centsToAmount } from '../../shared/money.js'
import { formatTimestamp } from '../../shared/time.js'
import { brandResource, modelResource } from '../catalog/catalog.mapper.js'
import type { ModelRow } from '../catalog/catalog.service.js'
import { certificateLinks } from '../certificates/certificate.rules.js'
import { customerFromView, customerResource, customerToView } from '../customers/customer.mapper.js'
import type { CustomerRow } from '../customers/customer.service.js'
import type { SubscriptionPlanRow } from '../plans/plan.service.js'
import type { InstallmentRow, SubscriptionView } from './subscription.repository.js'
import { INSTALLMENT_STATUS_LABELS, SUBSCRIPTION_STATUS_LABELS } from './subscription.rules.js'
import type { NewSubscription } from './subscription-contract.repository.js'

export function subscriptionResource(row: SubscriptionView, base: string, timeZone: string) {
  const model = modelResource(
    { id: row.model_id, name: row.model_name, brand_id: row.brand_id, brand_name: row.brand_name },
    base,
  )
  // The stored status: reads record an expiry the clock reached before they show the row
  // (subscription-end.service.ts catchUpEndOf).
  const { status } = row
  return {
    id: row.id,
    status,
    status_label: SUBSCRIPTION_STATUS_LABELS[status],
    plan: { id: row.plan_id, name: row.plan_name, coverages: JSON.parse(row.plan_coverages) as string[] },
    customer: customerResource(customerFromView(row), timeZone),
    device: {
      id: model.id,
      name: model.name,
      brand: brandResource({ id: row.brand_id, name: row.brand_name }, base),
      meta: model.meta,
      serial_number: row.serial_number,
      second_serial_number: row.second_serial_number,
      is_used: Boolean(row.is_used),
    },
    model,
    valor: centsToAmount(row.monthly_premium),
    franchise: centsToAmount(row.franchise),
    lmi: centsToAmount(row.lmi),
    installments_count: row.installments_count,
    policy_number: row.policy_number,
    certificate: certificateLinks(`/subscriptions/${row.id}`, row.certificate_code, status, base),
    store_id: row.store_id,
    metadata: { origin: row.origin },
    card: row.card_brand && row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
    cancellation:
      row.cancel_reason && row.canceled_at
        ? {
            reason: row.cancel_reason,
            canceled_at: formatTimestamp(row.canceled_at, timeZone),
            comment: row.cancel_comment,
          }
        : null,
    created_at: formatTimestamp(row.created_at, timeZone),
    updated_at: formatTimestamp(row.updated_at, timeZone),
  }
}

export type SubscriptionResource = ReturnType<typeof subscriptionResource>

export function installmentResource(row: InstallmentRow, timeZone: string) {
  return {
    id: row.id,
    number: row.number,
    amount: centsToAmount(row.amount),
    due_date: row.due_date,
    status: row.status,
    status_label: INSTALLMENT_STATUS_LABELS[row.status],
    paid_at: row.paid_at === null ? null : formatTimestamp(row.paid_at, timeZone),
    paid_with: row.paid_with,
    subscription_id: row.subscription_id,
    attempts: row.failed_attempts,
    last_decline_code: row.last_decline_code,
    next_attempt_on: row.next_attempt_on,
  }
}

/**
 * The view of a subscription just written, from the rows its contract read: what
 * findSubscriptionView would answer, without reading it back while the partner's counter is
 * locked (docs/decisions.md). Typed as the view, so a column added there must be added here.
 */
export function contractedView(
  id: number,
  subscription: NewSubscription,
  plan: Pick<SubscriptionPlanRow, 'id' | 'name' | 'coverages'>,
  customer: CustomerRow,
  model: ModelRow,
): SubscriptionView {
  return {
    id,
    partner_id: subscription.partner_id,
    status: subscription.status,
    lmi: subscription.lmi,
    monthly_premium: subscription.monthly_premium,
    franchise: subscription.franchise,
    installments_count: subscription.installments_count,
    store_id: subscription.store_id,
    origin: subscription.origin,
    serial_number: subscription.serial_number,
    second_serial_number: subscription.second_serial_number,
    is_used: subscription.is_used,
    card_brand: subscription.card_brand,
    card_last4: subscription.card_last4,
    canceled_at: subscription.canceled_at,
    ends_on: subscription.ends_on,
    policy_number: subscription.policy_number,
    certificate_code: subscription.certificate_code,
    cancel_reason: subscription.cancel_reason,
    cancel_comment: subscription.cancel_comment,
    created_at: subscription.created_at,
    updated_at: subscription.updated_at,
    plan_id: plan.id,
    plan_name: plan.name,
    plan_coverages: plan.coverages,
    model_id: model.id,
    model_name: model.name,
    brand_id: model.brand_id,
    brand_name: model.brand_name,
    ...customerToView(customer),
  }
}
