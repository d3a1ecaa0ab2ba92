import type { Insertable, Selectable } from 'kysely'
import { sql } from 'kysely'
import type { Trx } from '../../db/database.js'
import { writesContractInOneStatement } from '../../db/database.js'
import { definedColumns, insertReturningId, insertRows, prepared } from '../../db/prepared.js'
import type { InstallmentsTable, SubscriptionsTable } from '../../db/tables/subscription.js'

// Contracting's writes: the subscription, its installments and its partner's counter.

/** A subscription as contracting writes it: every column the view shows, none left to a default. */
export type NewSubscription = Omit<Selectable<SubscriptionsTable>, 'id' | 'partner_seq' | 'card_token'>
export type NewInstallment = Omit<Insertable<InstallmentsTable>, 'subscription_id'>

/**
 * Writes a subscription and its installments, numbering it in its partner's sequence.
 *
 * The counter comes first: on PostgreSQL its row stays locked until the caller commits, so a
 * partner's contracts take their numbers one after the other, and each takes its id (the identity
 * sequence) only once it holds the lock, which keeps `partner_seq` order equal to id order — the
 * list's "newest first" and the filtered lists (ordered by id) agree. Everything that can come
 * before the lock does (the service's reads and checks); after it come only the inserts. Incrementing
 * last (then updating the row's number) would hold the lock a little less but number concurrent
 * contracts out of id order, and write each subscription twice.
 */
export async function insertSubscription(
  trx: Trx,
  values: NewSubscription,
  installments: NewInstallment[],
): Promise<number> {
  if (writesContractInOneStatement(trx)) return insertInOneStatement(trx, values, installments)
  const [counter] = await incrementCounter(trx, values.partner_id)
  if (!counter) throw new Error(`No counter row for partner ${values.partner_id}`)
  // The added column before the spread, not after, which V8 makes slower (see contractSubscription).
  const id = await insertReturningId(trx, 'subscriptions', { partner_seq: Number(counter.total), ...values })
  await insertRows(
    trx,
    'installments',
    installments.map((i) => ({ subscription_id: id, ...i })),
  )
  return id
}

// An upsert, so the first contract needs no separate insert. SQLite only: PostgreSQL runs the same
// upsert at the head of insertInOneStatement.
const incrementCounter = prepared((trx: Trx, partnerId: number) =>
  trx
    .insertInto('partner_subscription_counts')
    .values({ partner_id: partnerId, total: 1 })
    .onConflict((oc) =>
      oc
        .column('partner_id')
        .doUpdateSet((eb) => ({ total: eb('partner_subscription_counts.total', '+', 1) })),
    )
    .returning('total'),
)

/**
 * PostgreSQL: the same three writes as one statement (data-modifying CTEs, all run to completion),
 * so the partner's counter row is locked for two round trips, this one and the commit, instead of
 * four. The installments travel as one JSON array read with the table's own row type. The text
 * depends only on the columns given, so the driver runs it as a named prepared statement.
 */
async function insertInOneStatement(trx: Trx, values: NewSubscription, installments: NewInstallment[]) {
  const columns = definedColumns(values)
  const installmentColumns = installments[0] ? definedColumns(installments[0]) : []
  const query = sql<{ id: number }>`
    with counter as (
      insert into partner_subscription_counts (partner_id, total) values (${values.partner_id}, 1)
      on conflict (partner_id) do update set total = partner_subscription_counts.total + 1
      returning total
    ), subscription as (
      insert into subscriptions (${sql.join(columns.map((c) => sql.ref(c)))}, partner_seq)
      select ${sql.join(columns.map((c) => values[c]))}, total from counter
      returning id
    ), installment as (
      insert into installments (subscription_id, ${sql.join(installmentColumns.map((c) => sql.ref(c)))})
      select subscription.id, ${sql.join(installmentColumns.map((c) => sql.ref(`i.${c}`)))}
      from subscription, json_populate_recordset(null::installments, ${JSON.stringify(installments)}::json) as i
    )
    select id from subscription`.compile(trx)
  const { rows } = await trx.executeQuery(query)
  const row = rows[0]
  if (!row) throw new Error('The subscription insert returned no id')
  return row.id
}
