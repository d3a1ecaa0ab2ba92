import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The dashboard's months are the service zone's (docs/decisions.md, Operator console data), which
 * a kept sum per UTC month cannot give: a month in São Paulo starts at 03:00 UTC on the 1st. The
 * kept aggregate becomes `premium_hours`: premiums written and collected per UTC hour
 * (`YYYY-MM-DDTHH`), partner and plan, kept by the same triggers on the same three append-only
 * tables, so that any zone's month is a range of hours. Filled here from what exists;
 * `premium_months` goes (and comes back, as migration 0018 made it, on the way down).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await unkeep(db, MONTHS)
  await keep(db, HOURS)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await unkeep(db, HOURS)
  await keep(db, MONTHS)
}

interface Kept {
  table: 'premium_months' | 'premium_hours'
  column: 'month' | 'hour'
  /** The key of an instant column, in SQL: PostgreSQL's and SQLite's. */
  key: (column: string) => [pg: string, sqlite: string]
}

const MONTHS: Kept = {
  table: 'premium_months',
  column: 'month',
  key: (c) => [`to_char(${c} at time zone 'UTC', 'YYYY-MM')`, `substr(${c}, 1, 7)`],
}
const HOURS: Kept = {
  table: 'premium_hours',
  column: 'hour',
  key: (c) => [`to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24')`, `substr(${c}, 1, 13)`],
}

const KEPT_BY = ['subscriptions', 'annual_plans', 'payments']

async function unkeep(db: Kysely<unknown>, kept: Kept): Promise<void> {
  const pg = isPostgres(db)
  for (const table of KEPT_BY)
    await sql.raw(`drop trigger if exists ${table}_${kept.table}${pg ? ` on ${table}` : ''}`).execute(db)
  if (pg) await sql.raw(`drop function if exists ${kept.table}_keep()`).execute(db)
  await db.schema.dropTable(kept.table).execute()
}

async function keep(db: Kysely<unknown>, kept: Kept): Promise<void> {
  const pg = isPostgres(db)
  const { table, column } = kept
  await db.schema
    .createTable(table)
    // In the C collation on PostgreSQL: a range of keys is a range of bytes.
    .addColumn(column, 'text', (c) =>
      pg && column === 'hour' ? c.notNull().modifyEnd(sql`collate "C"`) : c.notNull(),
    )
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    // 0: ledger rows of no contract.
    .addColumn('plan_id', 'integer', (c) => c.notNull())
    .addColumn('written', pg ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('collected', pg ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint(`${table}_pk`, [column, 'partner_id', 'plan_id'])
    .execute()

  // What a row adds, in SQL over `row` (a table alias, or `new` in a trigger).
  const key = (row: string) => kept.key(`${row}.created_at`)[pg ? 0 : 1]
  const planOfPayment = (row: string) => `coalesce(
      (select s.plan_id from subscriptions s where s.id = ${row}.subscription_id),
      (select a.plan_id from annual_plans a where a.id = ${row}.annual_plan_id), 0)`
  // Approved and recorded payments in, refunds paid out.
  const collected = (row: string) =>
    `case when ${row}.outcome = 'refunded' then -${row}.amount else ${row}.amount end`
  const collecting = (row: string) => `${row}.outcome in ('approved', 'recorded', 'refunded')`

  await sql`insert into ${sql.raw(table)} (${sql.raw(column)}, partner_id, plan_id, written, collected)
    select k, partner_id, plan_id, sum(written), sum(collected) from (
      select ${sql.raw(key('s'))} as k, s.partner_id, s.plan_id,
        s.monthly_premium * s.installments_count as written, 0 as collected from subscriptions s
      union all
      select ${sql.raw(key('a'))}, a.partner_id, a.plan_id, a.premium, 0 from annual_plans a
      union all
      select ${sql.raw(key('p'))}, p.partner_id, ${sql.raw(planOfPayment('p'))}, 0, ${sql.raw(collected('p'))}
      from payments p where ${sql.raw(collecting('p'))}
    ) as sums group by k, partner_id, plan_id`.execute(db)

  if (pg) {
    await sql`create function ${sql.raw(`${table}_keep`)}() returns trigger language plpgsql as $$
      declare
        k text := ${sql.raw(key('new'))};
        plan integer;
        w bigint := 0;
        c bigint := 0;
      begin
        if tg_table_name = 'subscriptions' then
          plan := new.plan_id;
          w := new.monthly_premium * new.installments_count;
        elsif tg_table_name = 'annual_plans' then
          plan := new.plan_id;
          w := new.premium;
        else
          if not (${sql.raw(collecting('new'))}) then return null; end if;
          plan := ${sql.raw(planOfPayment('new'))};
          c := ${sql.raw(collected('new'))};
        end if;
        insert into ${sql.raw(table)} as kept (${sql.raw(column)}, partner_id, plan_id, written, collected)
          values (k, new.partner_id, plan, w, c)
          on conflict (${sql.raw(column)}, partner_id, plan_id)
          do update set written = kept.written + excluded.written, collected = kept.collected + excluded.collected;
        return null;
      end $$`.execute(db)
    for (const from of KEPT_BY) {
      await sql`create trigger ${sql.raw(`${from}_${kept.table}`)} after insert on ${sql.raw(from)}
        for each row execute function ${sql.raw(`${table}_keep`)}()`.execute(db)
    }
    return
  }
  const upsert = (plan: string, written: string, added: string) =>
    `insert into ${table} (${column}, partner_id, plan_id, written, collected)
      values (${key('new')}, new.partner_id, ${plan}, ${written}, ${added})
      on conflict (${column}, partner_id, plan_id)
      do update set written = written + excluded.written, collected = collected + excluded.collected;`
  await sql`create trigger ${sql.raw(`subscriptions_${kept.table}`)} after insert on subscriptions begin
    ${sql.raw(upsert('new.plan_id', 'new.monthly_premium * new.installments_count', '0'))}
    end`.execute(db)
  await sql`create trigger ${sql.raw(`annual_plans_${kept.table}`)} after insert on annual_plans begin
    ${sql.raw(upsert('new.plan_id', 'new.premium', '0'))}
    end`.execute(db)
  await sql`create trigger ${sql.raw(`payments_${kept.table}`)} after insert on payments when ${sql.raw(collecting('new'))} begin
    ${sql.raw(upsert(planOfPayment('new'), '0', collected('new')))}
    end`.execute(db)
}
