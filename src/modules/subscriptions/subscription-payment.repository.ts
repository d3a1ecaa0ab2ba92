import type { Insertable } from 'kysely'
import { claimLease, type Reader, releaseLease, type Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { CardChecksTable, PaymentChannel } from '../../db/tables/payment.js'
import { UNPAID_STATUSES } from '../../db/tables/subscription.js'
import { recordPayment } from '../contracts/contract.repository.js'
import type { InstallmentRow } from './subscription.repository.js'

/** An installment being paid: recorded as paid on approval, as declined otherwise. */
export interface InstallmentPayment {
  partnerId: number
  subscriptionId: number
  installmentId: number
  number: number
  amount: number
}

/** An installment with what its payment rules need to know about its subscription. */
export async function findPartnerInstallment(
  db: Reader,
  partnerId: number,
  subscriptionId: number,
  installmentId: number,
) {
  return db
    .selectFrom('installments as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .selectAll('i')
    .select(['s.partner_id', 's.status as subscription_status', 's.created_at as subscription_created_at'])
    .where('i.id', '=', installmentId)
    .where('i.subscription_id', '=', subscriptionId)
    .where('s.partner_id', '=', partnerId)
    .executeTakeFirst()
}

export async function findInstallment(db: Reader, id: number): Promise<InstallmentRow | undefined> {
  return (await installmentById(db, id))[0]
}

// On the path of every payment of a PIX code or boleto (Stripe's events): compiled once (prepared()).
const installmentById = prepared((db: Reader, id: number) =>
  db.selectFrom('installments').selectAll().where('id', '=', id),
)

export async function findInstallmentByNumber(
  db: Reader,
  subscriptionId: number,
  number: number,
): Promise<InstallmentRow | undefined> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('number', '=', number)
    .executeTakeFirst()
}

/** Claims an unpaid installment for one charge until `until` (see chargeOnce). */
export function claimInstallment(trx: Trx, id: number, now: string, until: string): Promise<boolean> {
  return claimLease(trx, 'installments', id, { now, until }, (claim) =>
    claim.where('status', 'in', UNPAID_STATUSES),
  )
}

/** Ends our claim, and only ours: a claim that expired and was taken over stays with its new holder. */
export async function releaseInstallment(trx: Trx, id: number, until: string): Promise<void> {
  await releaseLease(trx, 'installments', id, until)
}

/**
 * The ledger row of an installment just paid (subscription-lifecycle.service.ts `payInstallment`,
 * after the transition that only one of concurrent payers wins).
 */
export async function recordInstallmentPayment(
  trx: Trx,
  payment: InstallmentPayment,
  channel: PaymentChannel,
  transactionId: string | null,
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    ...ledgerRow(payment, channel, now),
    outcome: channel === 'notification' ? 'recorded' : 'approved',
    transaction_id: transactionId,
  })
}

/** Writes the policy number and certificate code of a subscription just activated. */
export async function issuePolicy(
  trx: Trx,
  subscriptionId: number,
  policy: { policyNumber: string; certificateCode: string },
): Promise<void> {
  await policyIssue(trx, policy.policyNumber, policy.certificateCode, subscriptionId)
}

// Once per activation, in the payment's transaction: compiled once (prepared()).
const policyIssue = prepared((trx: Trx, policyNumber: string, certificateCode: string, id: number) =>
  trx
    .updateTable('subscriptions')
    .set({ policy_number: policyNumber, certificate_code: certificateCode })
    .where('id', '=', id)
    .where('policy_number', 'is', null),
)

/** Records a declined charge in the ledger, and its code on the installment. */
export async function recordDecline(
  trx: Trx,
  payment: InstallmentPayment,
  channel: PaymentChannel,
  declineCode: string,
  transactionId: string | null,
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    ...ledgerRow(payment, channel, now),
    outcome: 'declined',
    decline_code: declineCode,
    transaction_id: transactionId,
  })
  await trx
    .updateTable('installments')
    .set({ last_decline_code: declineCode })
    .where('id', '=', payment.installmentId)
    .execute()
}

function ledgerRow(payment: InstallmentPayment, channel: PaymentChannel, now: string) {
  return {
    partner_id: payment.partnerId,
    subscription_id: payment.subscriptionId,
    installment_id: payment.installmentId,
    annual_plan_id: null,
    amount: payment.amount,
    route: channel,
    decline_code: null,
    created_at: now,
  }
}

export interface StoredCard {
  token: string
  brand: string
  last4: string
}

/**
 * What the recurrence charges later; the number and security code never reach the database. The
 * later installments still unpaid become due for the recurrence on their due dates.
 */
export async function storeCard(
  trx: Trx,
  subscriptionId: number,
  card: StoredCard,
  now: string,
): Promise<void> {
  await trx
    .updateTable('subscriptions')
    .set({ card_token: card.token, card_brand: card.brand, card_last4: card.last4, updated_at: now })
    .where('id', '=', subscriptionId)
    .execute()
  await trx
    .updateTable('installments')
    .set((eb) => ({ next_attempt_on: eb.ref('due_date') }))
    .where('subscription_id', '=', subscriptionId)
    .where('number', '>', 1)
    .where('status', '=', 'pending')
    .where('next_attempt_on', 'is', null)
    .execute()
}

/** Installments of an active subscription due by `today` and not paid, oldest first (a card update). */
export async function unpaidDueInstallments(db: Reader, subscriptionId: number, today: string) {
  return db
    .selectFrom('installments')
    .select(['id', 'subscription_id', 'number', 'amount', 'failed_attempts'])
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .where('number', '>', 1)
    .where('due_date', '<=', today)
    .orderBy('number')
    .execute()
}

/** The number of this card check of a subscription: one more than those recorded (see nextChargeNumber). */
export async function nextCardCheckNumber(db: Reader, subscriptionId: number): Promise<number> {
  const { checks } = await db
    .selectFrom('card_checks')
    .select((eb) => eb.fn.countAll<number>().as('checks'))
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow()
  return Number(checks) + 1
}

export async function recordCardCheck(trx: Trx, row: Insertable<CardChecksTable>): Promise<void> {
  await trx.insertInto('card_checks').values(row).execute()
}
