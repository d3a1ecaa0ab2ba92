import { sql } from 'kysely'
import { type Db, isPostgres } from '../../src/db/database.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { nameWords } from '../../src/shared/text.js'
import { addMonthsClamped } from '../../src/shared/time.js'

// The dataset, inserted with plain Kysely in batches of 1,000 rows into a database holding the
// demo (its external partner's contract included). For each partner: customers (one for every three
// subscriptions, at most 50,000), then its subscriptions, with contiguous ids, `partner_seq` after
// the demo's and the partner's counter set, as contracting does. Only what the scenarios read is
// filled in: no installments, no cards, no stores (columns left out are null).

const DAY = 86_400_000

/** `count` rows made by `make(n)`, written 1,000 at a time. */
export async function inBatches<T>(count: number, make: (n: number) => T, write: (rows: T[]) => unknown) {
  for (let start = 0; start < count; start += 1000)
    await write(Array.from({ length: Math.min(1000, count - start) }, (_, k) => make(start + k)))
}

/** The 9 digits of `base` and their two check digits: a CPF the API accepts. */
function cpf(base: number): string {
  const digits = String(base).padStart(9, '0').split('').map(Number)
  for (const length of [9, 10]) {
    const sum = digits.slice(0, length).reduce((s, d, i) => s + d * (length + 1 - i), 0)
    digits.push(((sum * 10) % 11) % 10)
  }
  return digits.join('')
}

export type PartnerData = Awaited<ReturnType<typeof seed>>[number]

/** Seeds `counts[i]` subscriptions for the i-th partner (in id order). */
export async function seed(db: Db, counts: number[]) {
  // The demo's endpoint that nothing answers (shown failing on the console) would have every event
  // of the run delivered, and refused, beside the load; --endpoint adds endpoints of the bench's.
  await retryingTransaction(db, (trx) =>
    trx.updateTable('webhook_endpoints').set({ status: 'disabled' }).execute(),
  )
  const partners = await db.selectFrom('partners').select(['id', 'gateway']).orderBy('id').execute()
  const epoch = Date.now() - 730 * DAY
  const today = new Date().toISOString().slice(0, 10)
  const seeded = []
  for (const [index, { id, gateway }] of partners.slice(0, counts.length).entries()) {
    const count = counts[index] as number
    const { demo, lastDemoId } = await db
      .selectFrom('subscriptions')
      .select((eb) => [eb.fn.countAll<number>().as('demo'), eb.fn.max('id').as('lastDemoId')])
      .where('partner_id', '=', id)
      .executeTakeFirstOrThrow()
    const plans = await db
      .selectFrom('plans')
      .select(['id', 'installments', 'monthly_rate_bp', 'franchise_rate_bp'])
      .where('partner_id', '=', id)
      .where('kind', '=', 'subscription')
      .orderBy('id')
      .execute()
    const models = (
      await db
        .selectFrom('partner_models as pm')
        .innerJoin('models as m', 'm.id', 'pm.model_id')
        .select(['m.id', 'm.default_lmi', 'm.active', 'pm.unavailable'])
        .where('pm.partner_id', '=', id)
        .orderBy('m.id')
        .execute()
    ).filter((m) => Boolean(m.active) && !m.unavailable)
    const customer = (n: number) => ({
      partner_id: id,
      name: `Cliente ${n} da Silva`,
      document: cpf(200_000_000 + index * 100_000 + n),
      document_kind: 'cpf' as const,
      email: `cliente${n}.p${id}@bench.example`,
      phone: `119${String(n).padStart(8, '0')}`,
      street: 'Avenida Paulista',
      number: 1 + (n % 3000),
      complement: n % 3 ? null : `Apto ${n % 300}`,
      zipcode: '01310100',
      neighborhood: 'Bela Vista',
      city: 'São Paulo',
      state: 'SP',
      created_at: new Date(epoch + n * 1000).toISOString(),
    })
    const customerCount = Math.min(50_000, Math.max(20, Math.ceil(count / 3)))
    await inBatches(customerCount, customer, (rows) =>
      retryingTransaction(db, (trx) => trx.insertInto('customers').values(rows).execute()),
    )
    const customers = await db
      .selectFrom('customers')
      .select(['id', 'document', 'name'])
      .where('partner_id', '=', id)
      .orderBy('id')
      .execute()
    // The words the search by name reads, as the customers' repository writes them (migration 0029);
    // the demo's own customers already have theirs.
    const words = customers.flatMap((c) => nameWords(c.name).map((word) => ({ word, customer_id: c.id })))
    await inBatches(
      words.length,
      (n) => words[n] as (typeof words)[number],
      (rows) =>
        retryingTransaction(db, (trx) =>
          trx
            .insertInto('customer_name_words')
            .values(rows)
            .onConflict((conflict) => conflict.doNothing())
            .execute(),
        ),
    )
    const subscription = (n: number) => {
      const plan = plans[n % plans.length] as (typeof plans)[number]
      const model = models[(n * 7) % models.length] as (typeof models)[number]
      const lmi = model.default_lmi
      const status = n % 10 < 7 ? 'pago' : n % 10 < 9 ? 'pending' : 'canceled'
      const created = new Date(epoch + Math.floor((n / count) * 729 * DAY)).toISOString()
      const endsOn = addMonthsClamped(created.slice(0, 10), Number(plan.installments))
      const canceled = status === 'canceled'
      return {
        partner_id: id,
        partner_seq: Number(demo) + n + 1,
        customer_id: customers[n % customers.length]?.id as number,
        plan_id: plan.id,
        model_id: model.id,
        serial_number: String(350_000_000_000_000 + n),
        is_used: n % 7 === 0 ? 1 : 0,
        lmi,
        monthly_premium: Math.round((lmi * Number(plan.monthly_rate_bp)) / 10_000),
        franchise: Math.round((lmi * Number(plan.franchise_rate_bp)) / 10_000),
        installments_count: plan.installments,
        ends_on: endsOn,
        // A paid one that ended is recorded as expired, as the worker has done on a running service:
        // else every API process of the run would record the same ends again, beside the load.
        status: status === 'pago' && endsOn < today ? ('expired' as const) : status,
        origin: n % 2 ? `pdv-${n % 40}` : null,
        canceled_at: canceled ? created : null,
        cancel_reason: canceled ? ('partner_request' as const) : null,
        cancel_comment: canceled ? 'Cliente desistiu da proteção.' : null,
        created_at: created,
        updated_at: created,
      } as const
    }
    await inBatches(count, subscription, (rows) =>
      retryingTransaction(db, (trx) => trx.insertInto('subscriptions').values(rows).execute()),
    )
    await retryingTransaction(db, (trx) =>
      trx
        .insertInto('partner_subscription_counts')
        .values({ partner_id: id, total: Number(demo) + count })
        .onConflict((oc) => oc.column('partner_id').doUpdateSet({ total: Number(demo) + count }))
        .execute(),
    )
    const range = await db
      .selectFrom('subscriptions')
      .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
      .where('partner_id', '=', id)
      .where('id', '>', Number(lastDemoId ?? 0))
      .executeTakeFirstOrThrow()
    const [firstId, lastId] = [Number(range.first), Number(range.last)]
    if (count && lastId - firstId + 1 !== count) throw new Error(`partner ${id}: ids not contiguous`)
    seeded.push({
      id,
      gateway,
      subscriptions: Number(demo) + count,
      // Its seeded subscriptions are the ids firstId..lastId.
      firstId,
      lastId,
      customerIds: customers.map((c) => c.id),
      documents: customers.map((c) => c.document), // valid CPFs, bare
      planIds: plans.filter((p) => Number(p.installments) === 12).map((p) => p.id), // what (d) contracts
      models: models.map((m) => ({ id: m.id, defaultLmi: m.default_lmi })),
    })
  }
  // PostgreSQL: the state autovacuum reaches on its own a little later (statistics, visibility map).
  if (isPostgres(db)) await sql`vacuum analyze`.execute(db)
  else await sql`pragma wal_checkpoint(truncate)`.execute(db)
  return seeded
}
