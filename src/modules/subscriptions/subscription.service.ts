import type { Db, Reader, Trx } from '../../db/database.js'
import { usedDevice } from '../../http/contracting-fields.js'
import type { FieldErrors } from '../../shared/errors.js'
import { NotFoundError, ValidationError } from '../../shared/errors.js'
import { formatDate, type Moment, type PartnerTime } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { resolveCustomer } from '../customers/customer-reference.service.js'
import { deviceKey, notADevice, sameDevice } from '../devices/device.rules.js'
import { protectDevices } from '../devices/device-protection.service.js'
import { type RenderingContext, recordEvent } from '../events/event.service.js'
import { subscriptionPlanOf } from '../plans/plan.service.js'
import { subscriptionPrice } from '../plans/pricing.rules.js'
import { priceModel } from '../plans/quotation.service.js'
import { checkSellingStore } from '../shopkeepers/shopkeeper.service.js'
import { installmentSchedule } from './schedule.js'
import { contractedView, type SubscriptionResource, subscriptionResource } from './subscription.mapper.js'
import {
  activeSubscriptionsWithoutCard,
  findSubscriptionState,
  findSubscriptionView,
  listInstallments,
  listSubscriptionViews,
  type SubscriptionFilter,
} from './subscription.repository.js'
import { coverageEndsOn } from './subscription.rules.js'
import type { SubscriptionBody } from './subscription.schemas.js'
import { insertSubscription, type NewSubscription } from './subscription-contract.repository.js'
import { catchUpEndOf } from './subscription-end.service.js'

/** A subscription's serial fields, with the names its messages give them. */
export const SERIALS = [
  { field: 'serial_number', label: 'serial number' },
  { field: 'second_serial_number', label: 'second serial number' },
] as const

/** The subscription's serials as protectDevices reads them. */
export const serialFields = (serials: Serials) =>
  SERIALS.map(({ field, label }) => ({ field, label, value: serials[field] }))

/**
 * The serials' own rules, into `errors`: each names a device (Latin letters and digits once read
 * as devices are compared), and the two differ.
 */
export function checkSerials(serials: Serials, errors: FieldErrors): void {
  for (const { field, label, value } of serialFields(serials)) {
    if (value?.trim() && !deviceKey(value)) errors[field] = [notADevice(label)]
  }
  if (sameDevice(serials.serial_number, serials.second_serial_number)) {
    errors.second_serial_number = ['The second serial number and serial number must be different.']
  }
}

export interface Serials {
  serial_number?: string | null
  second_serial_number?: string | null
}

/**
 * Contracts a subscription: validates every reference against the partner, prices it as the
 * quotation does, and writes it with all its installments in the caller's transaction. Only the
 * listed inputs are read; status, prices and ids never come from the body. Answers the subscription
 * as the API shows it, its links under `base`; the event's copy is the same object when its base
 * is the same (AMPARO_PUBLIC_URL set), rendered once.
 */
export async function contractSubscription(
  trx: Trx,
  partner: PartnerContext,
  body: SubscriptionBody,
  { now, realNow, timeZone }: Moment & PartnerTime,
  rendering: RenderingContext,
  base: string,
): Promise<SubscriptionResource> {
  const { partnerId } = partner
  const errors: FieldErrors = {}
  const plan = await subscriptionPlanOf(trx, partnerId, body.plan_id)
  if (!plan) errors.plan_id = ['The selected plan id is invalid.']
  const customer = await resolveCustomer(trx, partnerId, body, errors)
  // Priced as the quotation prices it: the same model check, maxima rule and LMI range.
  const priced = await priceModel(
    trx,
    partner,
    { modelId: body.model_id, maxima: body.maxima ?? undefined },
    errors,
  )
  await checkSellingStore(trx, partnerId, body.store_id, errors)
  const used = usedDevice(body.is_used, body.used, errors)
  checkSerials(body, errors)
  if (!plan || !customer || !priced || Object.keys(errors).length > 0) {
    throw new ValidationError(errors)
  }

  const { model, lmi } = priced
  const price = subscriptionPrice(lmi, {
    monthlyRateBp: plan.monthly_rate_bp,
    franchiseRateBp: plan.franchise_rate_bp,
  })
  const contractedOn = formatDate(now, timeZone)
  const schedule = installmentSchedule(contractedOn, plan.installments, price.monthlyPremium)

  const subscription: NewSubscription = {
    partner_id: partnerId,
    customer_id: customer.id,
    plan_id: plan.id,
    model_id: model.id,
    store_id: body.store_id ?? null,
    serial_number: body.serial_number?.trim() || null,
    second_serial_number: body.second_serial_number?.trim() || null,
    is_used: used,
    lmi,
    monthly_premium: price.monthlyPremium,
    franchise: price.franchise,
    installments_count: plan.installments,
    status: 'pending',
    origin: body.metadata?.origin?.trim() || null,
    card_brand: null,
    card_last4: null,
    canceled_at: null,
    ends_on: coverageEndsOn(contractedOn, plan.installments),
    policy_number: null,
    certificate_code: null,
    cancel_reason: null,
    cancel_comment: null,
    created_at: now,
    updated_at: now,
  }
  const id = await insertSubscription(
    trx,
    subscription,
    // Each row written out, not spread: a property added after a spread is slow in V8
    // (docs/benchmarks.md, Optimisations kept).
    schedule.map(({ number, amount, due_date }) => ({
      number,
      amount,
      due_date,
      status: 'pending' as const,
      failed_attempts: 0,
      // Nothing charges them until a card is stored (storeCard schedules them then).
      next_attempt_on: null,
      created_at: now,
    })),
  )
  // Last, once the row it names exists: a device protected elsewhere rolls the contract back.
  await protectDevices(trx, { subscriptionId: id }, serialFields(subscription), {
    partnerId,
    now,
    realNow,
    timeZone,
  })
  const view = contractedView(id, subscription, plan, customer, model)
  const resource = subscriptionResource(view, base, timeZone)
  const sameLinks = base === rendering.base && timeZone === rendering.timeZone
  const object = sameLinks ? resource : subscriptionResource(view, rendering.base, rendering.timeZone)
  await recordEvent(trx, { partnerId, type: 'subscription.created', object, now })
  return resource
}

/** The subscription as the API shows it (links under `base`); 404 when it is not this partner's. */
export async function showSubscription(
  db: Reader,
  partnerId: number,
  id: number,
  base: string,
  timeZone: string,
) {
  const row = await findSubscriptionView(db, partnerId, id)
  if (!row) throw new NotFoundError('Subscription')
  return subscriptionResource(row, base, timeZone)
}

/**
 * GET /subscriptions/{id} at the partner's `now`: showSubscription, once an end the clock reached
 * is recorded with its event (catchUpEndOf), when this is the first read to show it.
 */
export async function readSubscription(
  db: Db,
  partnerId: number,
  id: number,
  { base, now }: { base: string; now: string },
  rendering: RenderingContext,
) {
  const row = await findSubscriptionView(db, partnerId, id)
  if (!row) throw new NotFoundError('Subscription')
  if (await catchUpEndOf(db, [row], now, rendering)) {
    return showSubscription(db, partnerId, id, base, rendering.timeZone)
  }
  return subscriptionResource(row, base, rendering.timeZone)
}

/**
 * One page of the partner's subscriptions matching `filter` at the partner's `now`, newest first,
 * as the API shows them; ends the clock reached are recorded with their events first (see
 * readSubscription).
 */
export async function subscriptionPage(
  db: Db,
  partnerId: number,
  filter: Omit<SubscriptionFilter, 'today'>,
  page: { offset: number; limit: number },
  { base, now }: { base: string; now: string },
  rendering: RenderingContext,
) {
  const { timeZone } = rendering
  const matching = { ...filter, today: formatDate(now, timeZone) }
  let { rows, total } = await listSubscriptionViews(db, partnerId, matching, page.offset, page.limit)
  if (await catchUpEndOf(db, rows, now, rendering)) {
    ;({ rows, total } = await listSubscriptionViews(db, partnerId, matching, page.offset, page.limit))
  }
  return { data: rows.map((row) => subscriptionResource(row, base, timeZone)), total }
}

/** The partner's subscription's state; 404 when it is not theirs. */
export async function requireSubscriptionState(db: Reader, partnerId: number, id: number) {
  const subscription = await findSubscriptionState(db, partnerId, id)
  if (!subscription) throw new NotFoundError('Subscription')
  return subscription
}

/** The installments of the partner's subscription, by number; 404 when it is not theirs. */
export async function listInstallmentsOf(db: Db, partnerId: number, id: number) {
  await requireSubscriptionState(db, partnerId, id)
  return listInstallments(db, id)
}

/** Active subscriptions of the partner with no card on file: what a switch to the own gateway strands. */
export async function countActiveWithoutCard(db: Db, partnerId: number): Promise<number> {
  return activeSubscriptionsWithoutCard(db, partnerId)
}
