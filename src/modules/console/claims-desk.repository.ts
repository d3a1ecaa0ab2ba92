import { sql } from 'kysely'
import type { Reader } from '../../db/database.js'
import { eventObjectId, eventObjectIdIn } from '../../db/database.js'
import type { ClaimStatus, ClaimsTable } from '../../db/tables/claim.js'

// What the claims desk reads (README, Operator console: the operator API behind the screens): any partner's claims, with
// their contract, customer, device, documents and the contract's events.

export interface QueueFilter {
  statuses?: readonly ClaimStatus[]
  type?: ClaimsTable['type']
  partnerId?: number
  /** Only claims with at least one fraud signal. */
  fraud?: boolean
  /** Only claims assigned to this operator, or (null) to nobody. */
  assigneeId?: number | null
}

function matching(db: Reader, filter: QueueFilter) {
  let query = db.selectFrom('claims as cl')
  if (filter.statuses) query = query.where('cl.status', 'in', [...filter.statuses])
  if (filter.type) query = query.where('cl.type', '=', filter.type)
  if (filter.partnerId !== undefined) query = query.where('cl.partner_id', '=', filter.partnerId)
  if (filter.fraud) query = query.where('cl.fraud_signals', '<>', '[]')
  if (filter.assigneeId === null) query = query.where('cl.assignee_id', 'is', null)
  else if (filter.assigneeId !== undefined) query = query.where('cl.assignee_id', '=', filter.assigneeId)
  return query
}

/**
 * The queue's orders: `deadline`, the nearest first (the earliest start of the 30 days), those
 * suspended or without one after, by opening; `opening`, oldest first.
 */
export type QueueOrder = 'deadline' | 'opening'

/** A page of the queue in `order`, and how many match. */
export async function claimQueue(
  db: Reader,
  filter: QueueFilter,
  order: QueueOrder,
  page: { offset: number; limit: number },
) {
  let ordered = matching(db, filter)
  if (order === 'deadline')
    ordered = ordered.orderBy(sql`cl.deadline_started_at is null`).orderBy('cl.deadline_started_at')
  const [rows, count] = await Promise.all([
    ordered
      .innerJoin('partners as p', 'p.id', 'cl.partner_id')
      .innerJoin('customers as c', 'c.id', 'cl.customer_id')
      .innerJoin('models as m', 'm.id', 'cl.model_id')
      .leftJoin('operators as ao', 'ao.id', 'cl.assignee_id')
      .select([
        'cl.id',
        'cl.assignee_id',
        'ao.email as assignee_email',
        'cl.number',
        'cl.status',
        'cl.type',
        'cl.partner_id',
        'p.name as partner_name',
        'c.name as customer_name',
        'cl.model_id',
        'm.name as model_name',
        'cl.serial_number',
        'cl.occurred_at',
        'cl.created_at',
        'cl.fraud_signals',
        'cl.lmi',
        'cl.franchise',
        'cl.approved_amount',
        'cl.payable_amount',
        'cl.deadline_started_at',
      ])
      .orderBy('cl.created_at')
      .orderBy('cl.id')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    matching(db, filter)
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

/** One claim with its partner, customer and device, or undefined. */
export async function findDeskClaim(db: Reader, id: number) {
  return db
    .selectFrom('claims as cl')
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .innerJoin('customers as c', 'c.id', 'cl.customer_id')
    .innerJoin('models as m', 'm.id', 'cl.model_id')
    .innerJoin('brands as b', 'b.id', 'm.brand_id')
    .leftJoin('operators as ao', 'ao.id', 'cl.assignee_id')
    .selectAll('cl')
    .select([
      'ao.email as assignee_email',
      'p.name as partner_name',
      'c.name as customer_name',
      'c.document as customer_document_now',
      'c.document_kind as customer_document_kind',
      'c.email as customer_email',
      'c.phone as customer_phone',
      'c.city as customer_city',
      'c.state as customer_state',
      'm.name as model_name',
      'b.name as brand_name',
    ])
    .where('cl.id', '=', id)
    .executeTakeFirst()
}

export type DeskClaimRow = NonNullable<Awaited<ReturnType<typeof findDeskClaim>>>

export async function documentsOf(db: Reader, claimId: number) {
  return db
    .selectFrom('claim_documents')
    .select(['id', 'kind', 'filename', 'content_type', 'size', 'sha256', 'uploaded_at'])
    .where('claim_id', '=', claimId)
    .orderBy('id')
    .execute()
}

/** Claims of one contract (a subscription or an annual plan). */
export async function claimIdsOfContract(
  db: Reader,
  contract: { subscriptionId: number | null; annualPlanId: number | null },
) {
  let query = db.selectFrom('claims').select('id')
  query =
    contract.subscriptionId !== null
      ? query.where('subscription_id', '=', contract.subscriptionId)
      : query.where('annual_plan_id', '=', contract.annualPlanId)
  return (await query.execute()).map((row) => row.id)
}

export async function installmentIdsOf(db: Reader, subscriptionId: number) {
  const rows = await db
    .selectFrom('installments')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .execute()
  return rows.map((row) => row.id)
}

/** The partner's events whose object has one of these ids, oldest first (the caller keeps the right types). */
export async function eventsOfObjects(db: Reader, partnerId: number, ids: number[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('events')
    .select(['id', 'public_id', 'type', 'created_at', eventObjectId(db).as('object_id')])
    .where('partner_id', '=', partnerId)
    .where(eventObjectIdIn(db, ids))
    .orderBy('created_at')
    .orderBy('id')
    .limit(500)
    .execute()
}

/** Every matching claim, oldest first, in batches (the CSV export streams them), with its contract's policy number. */
export async function* claimExportRows(db: Reader, filter: QueueFilter, batch = 1000) {
  let after = 0
  for (;;) {
    const rows = await matching(db, filter)
      .innerJoin('partners as p', 'p.id', 'cl.partner_id')
      .innerJoin('customers as c', 'c.id', 'cl.customer_id')
      .innerJoin('models as m', 'm.id', 'cl.model_id')
      .leftJoin('subscriptions as s', 's.id', 'cl.subscription_id')
      .leftJoin('annual_plans as ap', 'ap.id', 'cl.annual_plan_id')
      .leftJoin('operators as ao', 'ao.id', 'cl.assignee_id')
      .select([
        'cl.id',
        'cl.number',
        'cl.status',
        'cl.type',
        'p.name as partner_name',
        'cl.subscription_id',
        'cl.annual_plan_id',
        's.policy_number as subscription_policy_number',
        'ap.policy_number as annual_plan_policy_number',
        'c.name as customer_name',
        'm.name as model_name',
        'cl.serial_number',
        'cl.occurred_at',
        'cl.created_at',
        'cl.decided_at',
        'cl.settled_at',
        'cl.fraud_signals',
        'cl.lmi',
        'cl.franchise',
        'cl.approved_amount',
        'cl.payable_amount',
        'ao.email as assignee_email',
      ])
      .where('cl.id', '>', after)
      .orderBy('cl.id')
      .limit(batch)
      .execute()
    yield* rows
    const last = rows[rows.length - 1]
    if (!last || rows.length < batch) return
    after = last.id
  }
}

export type ClaimExportRow = ReturnType<typeof claimExportRows> extends AsyncGenerator<infer R> ? R : never
