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
