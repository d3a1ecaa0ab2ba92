import type { CancellationReason } from '../../db/tables/subscription.js'
import {
  type InstallmentStatus,
  type SubscriptionStatus,
  UNPAID_STATUSES,
} from '../../db/tables/subscription.js'
import { StateError } from '../../shared/errors.js'
import {
  INSTALLMENT_STATUS_LABELS as INSTALLMENT_STATUS_TEXT,
  SUBSCRIPTION_STATUS_LABELS as SUBSCRIPTION_STATUS_TEXT,
} from '../../shared/labels.js'
import { addDays, addMonthsClamped, formatDate, startOfLocalDate } from '../../shared/time.js'

// The subscription's pure rules (README, Subscriptions): every status it and its installments move
// through, and every gate a call passes before it changes one. Repositories report the rows, the
// services ask these rules, then write. Instants are UTC ISO strings or Dates, dates 'YYYY-MM-DD'
// in the service zone.

// — Statuses —

export const SUBSCRIPTION_STATUS_LABELS = SUBSCRIPTION_STATUS_TEXT satisfies Record<
  SubscriptionStatus,
  string
>
export const INSTALLMENT_STATUS_LABELS = INSTALLMENT_STATUS_TEXT satisfies Record<InstallmentStatus, string>

/** An installment that can still be paid: pending, or refused by a declined charge. */
export const isUnpaid = (status: InstallmentStatus): boolean =>
  (UNPAID_STATUSES as readonly InstallmentStatus[]).includes(status)

// — Transitions (the only moves subscription-lifecycle.service.ts makes) —

/**
 * For each status, the statuses a subscription may move to it from: paying installment 1 activates
 * it, a pending or active one may be canceled, an active one expires. Nothing returns to `pending`.
 */
export const SUBSCRIPTION_FROM = {
  pending: [],
  pago: ['pending'],
  canceled: ['pending', 'pago'],
  expired: ['pago'],
} as const satisfies Record<SubscriptionStatus, readonly SubscriptionStatus[]>

/**
 * For each status, the statuses an installment may move to it from: an unpaid one is paid, refused
 * (again, counting one more declined charge at the counter) or canceled with its subscription.
 */
export const INSTALLMENT_FROM = {
  pending: [],
  paid: UNPAID_STATUSES,
  refused: UNPAID_STATUSES,
  canceled: UNPAID_STATUSES,
} as const satisfies Record<InstallmentStatus, readonly InstallmentStatus[]>

/** Whether a subscription may move from `from` to `to`. */
export const subscriptionMayMove = (from: SubscriptionStatus, to: SubscriptionStatus): boolean =>
  (SUBSCRIPTION_FROM[to] as readonly SubscriptionStatus[]).includes(from)

/** Whether an installment may move from `from` to `to`. */
export const installmentMayMove = (from: InstallmentStatus, to: InstallmentStatus): boolean =>
  (INSTALLMENT_FROM[to] as readonly InstallmentStatus[]).includes(from)

/** A stored status change, applied only to a subscription still in `from` (the concurrency guard). */
export interface Transition {
  from: SubscriptionStatus
  to: SubscriptionStatus
}

// — Activation —

/** Paying installment 1 activates a pending subscription; any other payment leaves it as it is. */
export function activationBy(installmentNumber: number): Transition | null {
  return installmentNumber === 1 ? { from: 'pending', to: 'pago' } : null
}

// — The end (docs/decisions.md, "A subscription ends") —

/**
 * The day a subscription of `installmentsCount` installments contracted on `contractedOn` ends:
 * installment k covers the month from its due date to the next one's, so the last one's month ends
 * on the date installment n + 1 would be due (counted from the contracting date, clamped).
 */
export function coverageEndsOn(contractedOn: string, installmentsCount: number): string {
  return addMonthsClamped(contractedOn, installmentsCount)
}

/** The instant the subscription ends: 00:00 of `endsOn` in the service zone (its first instant on a DST day). */
export function coverageEndsAt(endsOn: string, timeZone: string): string {
  return startOfLocalDate(endsOn, timeZone)
}

/** What the end of a subscription reads of it. */
export interface EndFields {
  status: SubscriptionStatus
  ends_on: string
}

/**
 * Whether an active (`pago`) subscription's expiry is due at `now`: past the last installment's
 * month and not recorded yet. A subscription canceled, or never activated, does not expire: it has
 * ended otherwise.
 */
export function expiredAt(subscription: EndFields, now: string | Date, timeZone: string): boolean {
  return endedBy(subscription, formatDate(now, timeZone))
}

/** `expiredAt` on the partner's date `today` ('YYYY-MM-DD', service zone): for many rows at one instant. */
export function endedBy(subscription: EndFields, today: string): boolean {
  return subscription.status === 'pago' && today >= subscription.ends_on
}

/**
 * The status the API shows at `now`: the stored one, or `expired` once the clock passed the end
 * (reads record it before they show the row: subscription-end.service.ts `catchUpEndOf`).
 */
export function statusAt(subscription: EndFields, now: string | Date, timeZone: string): SubscriptionStatus {
  return expiredAt(subscription, now, timeZone) ? 'expired' : subscription.status
}

// — The 30-day expiry of an unpaid subscription —

/** A `pending` subscription whose first installment is unpaid this many days after contracting is canceled. */
export const PENDING_EXPIRY_DAYS = 30

/** The worker's cancellation of a pending subscription left unpaid. */
export const UNPAID_CANCELLATION = { from: 'pending', reason: 'first_installment_unpaid' } as const

/**
 * The instant before which a subscription was contracted 30 or more calendar days (service zone)
 * before `today`: 00:00 of day today − 29. Calendar days, like due dates and retries, so a run at
 * any hour of a day gives the same answer.
 */
export function expiryCutoff(today: string, timeZone: string): string {
  const day = addDays(today, 1 - PENDING_EXPIRY_DAYS)
  return startOfLocalDate(day, timeZone)
}

/**
 * Whether a subscription contracted at `createdAt` is, at `now`, past the day on which the worker
 * cancels it if installment 1 is still unpaid. Paying installment 1 checks it too: a payment must
 * not activate what the worker would have canceled had it run on time.
 */
export function pastPendingExpiry(createdAt: string, now: Date, timeZone: string): boolean {
  return Date.parse(createdAt) < Date.parse(expiryCutoff(formatDate(now, timeZone), timeZone))
}

/**
 * Installment 1 of a subscription past its unpaid days, which the worker cancels or has yet to:
 * refused, so that a late payment never activates it while the worker is behind.
 */
export class ExpiredUnpaidError extends StateError {
  constructor() {
    super(
      `The subscription expired unpaid: installment 1 was not paid within ${PENDING_EXPIRY_DAYS} days of contracting.`,
    )
  }
}

// — Cancellation —

/**
 * Canceling a subscription in `state` for `reason` (a partner's request, a claim settled…): from its
 * stored status to `canceled`. Only a pending or active one can be; anything else is a 422.
 */
export function cancellationOf(
  state: SubscriptionStatus,
  reason: CancellationReason,
): Transition & { reason: CancellationReason } {
  if (state === 'canceled') throw new StateError('The subscription is already canceled.')
  if (state === 'expired')
    throw new StateError('The subscription has expired: there is nothing left to cancel.')
  return { from: state, to: 'canceled', reason }
}

/**
 * After a declined recurrence charge: with no retry left (`nextAttemptOn` null) the installment is
 * refused and its active subscription canceled; otherwise nothing changes but the next attempt.
 */
export function recurrenceCancellation(nextAttemptOn: string | null) {
  return nextAttemptOn === null ? ({ from: 'pago', reason: 'recurrence_failed' } as const) : null
}

// — Gates —

/** What notifying an installment's payment reads. */
export interface NotifiedInstallment {
  number: number
  status: InstallmentStatus
  subscription_status: SubscriptionStatus
  subscription_created_at: string
}

/**
 * An external-gateway partner may record the payment of an unpaid installment: not of a canceled
 * subscription or a canceled installment, a later one only once installment 1 is paid, and
 * installment 1 not past the unpaid days. An expired subscription's installment still unpaid may be
 * recorded: the month it covered has been (docs/decisions.md, "A subscription ends").
 */
export function assertNotifiable(
  installment: NotifiedInstallment,
  firstPaid: () => boolean,
  now: Date,
  timeZone: string,
): void {
  if (installment.subscription_status === 'canceled') throw new StateError('The subscription is canceled.')
  if (installment.status === 'canceled') throw new StateError('The installment is canceled.')
  if (installment.number > 1) {
    if (!firstPaid()) throw new StateError('Installment 1 must be paid first.')
  } else if (pastPendingExpiry(installment.subscription_created_at, now, timeZone)) {
    throw new ExpiredUnpaidError()
  }
}

/** Installment 1 may be paid by card while the subscription is pending and not past its unpaid days. */
export function assertFirstPayableByCard(
  subscription: { status: SubscriptionStatus; created_at: string },
  first: { status: InstallmentStatus } | undefined,
  now: Date,
  timeZone: string,
): void {
  if (subscription.status !== 'pending') {
    throw new StateError(`Only a pending subscription can be paid; this one is ${subscription.status}.`)
  }
  if (pastPendingExpiry(subscription.created_at, now, timeZone)) throw new ExpiredUnpaidError()
  if (!first || !isUnpaid(first.status)) throw new StateError('Installment 1 can no longer be paid.')
}

/** Only an active subscription's card can be replaced. */
export function assertCardReplaceable(state: SubscriptionStatus): void {
  if (state === 'canceled') throw new StateError('The subscription is canceled.')
  if (state === 'expired')
    throw new StateError('The subscription has expired: it has nothing left to charge.')
  if (state === 'pending') {
    throw new StateError(
      'Installment 1 is unpaid: pay it with POST /subscriptions/{id}/payment, which keeps the card.',
    )
  }
}

/** Serial numbers may be informed while the subscription protects its device. */
export function assertSerialsInformable(state: SubscriptionStatus): void {
  if (state === 'canceled') {
    throw new StateError('The subscription is canceled: its serial numbers can no longer be informed.')
  }
  if (state === 'expired') {
    throw new StateError('The subscription has expired: its serial numbers can no longer be informed.')
  }
}
