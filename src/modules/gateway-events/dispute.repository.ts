import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { DisputeStatus, PaymentDisputesTable } from '../../db/tables/payment-code.js'

export type DisputeRow = Selectable<PaymentDisputesTable>

/** The approved charge (ledger row) a Stripe dispute names, by its PaymentIntent or charge id. */
export async function findDisputedPayment(db: Reader, references: readonly string[]) {
  if (references.length === 0) return undefined
  return db
    .selectFrom('payments')
    .select(['id', 'partner_id', 'subscription_id', 'installment_id', 'annual_plan_id'])
    .where('transaction_id', 'in', [...references])
    .where('route', '!=', 'refund')
    .where('outcome', '=', 'approved')
    .orderBy('id')
    .executeTakeFirst()
}

export async function findDispute(db: Reader, gatewayDisputeId: string) {
  return db
    .selectFrom('payment_disputes')
    .selectAll()
    .where('gateway_dispute_id', '=', gatewayDisputeId)
    .executeTakeFirst()
}

export async function insertDispute(trx: Trx, values: Insertable<PaymentDisputesTable>): Promise<void> {
  await trx.insertInto('payment_disputes').values(values).execute()
}

export async function updateDispute(
  trx: Trx,
  id: number,
  changes: {
    status: DisputeStatus
    evidence_due_by: string | null
    amount: number
    reason: string
    updated_at: string
  },
): Promise<void> {
  await trx.updateTable('payment_disputes').set(changes).where('id', '=', id).execute()
}

/** A dispute with what its event and the console show: its payment, contract and partner. */
export function disputeViews(db: Reader) {
  return db
    .selectFrom('payment_disputes as d')
    .innerJoin('payments as pay', 'pay.id', 'd.payment_id')
    .innerJoin('partners as p', 'p.id', 'd.partner_id')
    .leftJoin('subscriptions as s', 's.id', 'pay.subscription_id')
    .leftJoin('annual_plans as a', 'a.id', 'pay.annual_plan_id')
    .leftJoin('installments as i', 'i.id', 'pay.installment_id')
    .select([
      'd.id',
      'd.gateway_dispute_id',
      'd.partner_id',
      'p.name as partner_name',
      'd.payment_id',
      's.id as subscription_id',
      'pay.installment_id',
      'i.number as installment_number',
      'pay.transaction_id as payment_reference',
      'pay.created_at as paid_at',
      'a.id as annual_plan_id',
      's.policy_number as subscription_policy',
      'a.policy_number as plan_policy',
      'd.amount',
      'd.reason',
      'd.status',
      'd.evidence_due_by',
      'd.created_at',
      'd.updated_at',
    ])
}

export type DisputeView = Awaited<ReturnType<ReturnType<typeof disputeViews>['executeTakeFirstOrThrow']>>

/** A page of disputes (the console's Disputas): the nearest evidence deadline first, none last. */
export async function disputeRows(
  db: Reader,
  status: DisputeStatus | undefined,
  page: { offset: number; limit: number },
) {
  const rows = await disputeViews(db)
    .$if(status !== undefined, (q) => q.where('d.status', '=', status as DisputeStatus))
    .orderBy((eb) => eb.case().when('d.evidence_due_by', 'is', null).then(1).else(0).end())
    .orderBy('d.evidence_due_by')
    .orderBy('d.id')
    .offset(page.offset)
    .limit(page.limit)
    .execute()
  const count = await db
    .selectFrom('payment_disputes')
    .$if(status !== undefined, (q) => q.where('status', '=', status as DisputeStatus))
    .select((eb) => eb.fn.countAll<string>().as('total'))
    .executeTakeFirstOrThrow()
  return { rows, total: Number(count.total) }
}
