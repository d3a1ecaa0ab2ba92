// What a message is and when it is tried again (README, Messages to the insured). Pure.

export const MESSAGE_KINDS = [
  'sign_in',
  'contract_in_force',
  'installment_declined',
  'installment_overdue',
  'claim_opened',
  'claim_documents_requested',
  'claim_approved',
  'claim_denied',
  'claim_settled',
  'contract_canceled',
] as const
export type MessageKind = (typeof MESSAGE_KINDS)[number]

export const MESSAGE_STATES = ['pending', 'sent', 'kept', 'failed'] as const

/**
 * The `Message-ID`'s left part of an event's message to a customer: the same event and customer
 * always name the same message, so a mail system drops a second copy and the table refuses a
 * second row.
 */
export const eventMessageKey = (eventPublicId: string, customerId: number) =>
  `${eventPublicId}.c${customerId}`

/**
 * A message's subject as an operator reads it: in `production` a sign-in message's code is hidden
 * (whoever reads it could sign in as the insured); in `test` it shows, as the kept messages show it
 * (docs/decisions.md, Messages to the insured).
 */
export function subjectForOperator(kind: string, subject: string, env: 'test' | 'production'): string {
  return kind === 'sign_in' && env === 'production' ? subject.replace(/\d/g, '•') : subject
}

/** The full `Message-ID` header: the key at the sender's domain. */
export function messageIdHeader(key: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'amparo.invalid'
  return `<${key}@${domain}>`
}

/** How long after queueing a message is still tried; then it is `failed`. */
export const RETRY_WINDOW_MS = 24 * 3_600_000

/** Pauses after the 1st, 2nd, … refused attempt; the last repeats until the window closes. */
export const RETRY_PAUSES_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000]

/**
 * When a refused message is tried again: after `attempts` attempts, the pause for that count,
 * or null once that would fall past 24 h from when it was queued (it is then `failed`).
 */
export function nextAttemptAt(attempts: number, queuedAt: Date, now: Date): Date | null {
  const pause = RETRY_PAUSES_MS[Math.min(attempts, RETRY_PAUSES_MS.length) - 1] ?? RETRY_PAUSES_MS[0]
  const next = new Date(now.getTime() + (pause as number))
  return next.getTime() > queuedAt.getTime() + RETRY_WINDOW_MS ? null : next
}

/** An event's resource as the message needs it: loose, since each type carries its own. */
// biome-ignore lint/suspicious/noExplicitAny: the resource of any event type, read by its own kind
export type EventObject = Record<string, any>

/**
 * Which message an event makes, if any. An installment's failure is announced only under the own
 * gateway (under the partner's, the partner collects): with a retry ahead it is `declined`, after
 * the last one `overdue`. A contract is in force once a subscription is paid (`activated`) or an
 * annual plan is paid (its certificate exists from then on).
 */
export function messageKindOf(type: string, object: EventObject, gateway: string | null): MessageKind | null {
  switch (type) {
    case 'subscription.activated':
    case 'annual_plan.paid':
      return 'contract_in_force'
    case 'installment.payment_failed':
      if (gateway !== 'own') return null
      return object.next_attempt_on ? 'installment_declined' : 'installment_overdue'
    case 'claim.opened':
      return 'claim_opened'
    case 'claim.documents_requested':
      return 'claim_documents_requested'
    case 'claim.approved':
      return 'claim_approved'
    case 'claim.denied':
      return 'claim_denied'
    case 'claim.settled':
      return 'claim_settled'
    case 'subscription.canceled':
    case 'annual_plan.canceled':
      return 'contract_canceled'
    default:
      return null
  }
}

/** Whom an event's message goes to: its resource's customer, or the subscription of an installment. */
export function recipientOf(
  type: string,
  object: EventObject,
): { customerId: number } | { subscriptionId: number } | null {
  if (type.startsWith('installment.'))
    return typeof object.subscription_id === 'number' ? { subscriptionId: object.subscription_id } : null
  const id = object.customer?.id
  return typeof id === 'number' ? { customerId: id } : null
}

/** The certificate attached to a contract-in-force message: the contract it is of. */
export function certificateOf(
  type: string,
  object: EventObject,
): { product: 'subscription' | 'annual_plan'; id: number } | null {
  if (type === 'subscription.activated') return { product: 'subscription', id: object.id }
  if (type === 'annual_plan.paid') return { product: 'annual_plan', id: object.id }
  return null
}
