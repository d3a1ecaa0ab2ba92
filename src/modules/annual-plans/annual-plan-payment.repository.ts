import type { Trx } from '../../db/database.js'

/**
 * Claims an unpaid plan for one card charge until `until`, in a transaction of its own (committed
 * before the gateway is called): of concurrent callers exactly one gets true, so a plan is never
 * charged twice. A claim older than `now` was abandoned (its process died mid-charge) and may be
 * taken over.
 */
export async function claimForCharge(trx: Trx, id: number, now: string, until: string): Promise<boolean> {
  const result = await trx
    .updateTable('annual_plans')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_payment')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Ends our claim, and only ours: one that expired and was taken over stays with its new holder. */
export async function releaseClaim(trx: Trx, id: number, until: string): Promise<void> {
  await trx
    .updateTable('annual_plans')
    .set({ locked_until: null })
    .where('id', '=', id)
    .where('locked_until', '=', until)
    .execute()
}

export interface Payment {
  paidAt: string
  startsAt: string
  endsAt: string
  policyNumber: string
  /** Own gateway: the card that paid, and in how many installments. */
  card?: { brand: string; last4: string; installments: number }
}

/** What a payment writes on its plan, the card's columns aside. */
export function paidColumns(payment: Payment) {
  return {
    status: 'paid' as const,
    paid_at: payment.paidAt,
    starts_at: payment.startsAt,
    ends_at: payment.endsAt,
    policy_number: payment.policyNumber,
    locked_until: null,
  }
}

/**
 * Moves a plan from `awaiting_payment` to `paid`. The condition on the status is the guard: of
 * concurrent confirmations exactly one updates the row (and the caller writes the ledger only
 * then); the others get false and write nothing.
 */
export async function markPaid(trx: Trx, id: number, payment: Payment): Promise<boolean> {
  const { card } = payment
  const result = await trx
    .updateTable('annual_plans')
    .set({
      ...paidColumns(payment),
      ...(card && {
        payment_method: 'credit_card' as const,
        payment_installments: card.installments,
        card_brand: card.brand,
        card_last4: card.last4,
      }),
    })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_payment')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
