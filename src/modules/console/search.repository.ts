import type { Reader } from '../../db/database.js'

// The search's lookups (README, Operator console: the operator API behind the screens): each key to the customers it names, then
// those customers' documents to every customer and contract under every partner. Each lookup is an
// indexed equality (migration 0018).

/** Customer ids of the contracts and claims these keys name. */
export async function customerIdsMatching(
  db: Reader,
  keys: {
    claimNumber: string | null
    policyNumber: string | null
    id: number | null
    serials: string[]
    deviceKey: string | null
    namePrefixes: string[]
  },
): Promise<number[]> {
  const lookups: Promise<{ customer_id: number }[]>[] = []
  if (keys.claimNumber)
    lookups.push(
      db.selectFrom('claims').select('customer_id').where('number', '=', keys.claimNumber).execute(),
    )
  if (keys.policyNumber) {
    // Subscriptions and annual plans draw policy numbers from one sequence.
    for (const table of ['annual_plans', 'subscriptions'] as const)
      lookups.push(
        db.selectFrom(table).select('customer_id').where('policy_number', '=', keys.policyNumber).execute(),
      )
  }
  if (keys.id !== null) {
    const id = keys.id
    lookups.push(db.selectFrom('subscriptions').select('customer_id').where('id', '=', id).execute())
    lookups.push(db.selectFrom('annual_plans').select('customer_id').where('id', '=', id).execute())
  }
  if (keys.serials.length > 0) {
    const serials = keys.serials
    for (const column of ['serial_number', 'second_serial_number'] as const)
      lookups.push(
        db
          .selectFrom('subscriptions')
          .select('customer_id')
          .where(column, 'in', serials)
          .limit(200)
          .execute(),
      )
    for (const column of ['imei', 'imei_2'] as const)
      lookups.push(
        db.selectFrom('annual_plans').select('customer_id').where(column, 'in', serials).limit(200).execute(),
      )
  }
  if (keys.deviceKey !== null) {
    const key = keys.deviceKey
    for (const column of ['device_key', 'second_device_key'] as const)
      lookups.push(db.selectFrom('claims').select('customer_id').where(column, '=', key).limit(200).execute())
    // The contract holding the device now, however its serial was written.
    lookups.push(
      db
        .selectFrom('device_protections as dp')
        .leftJoin('subscriptions as s', 's.id', 'dp.subscription_id')
        .leftJoin('annual_plans as ap', 'ap.id', 'dp.annual_plan_id')
        .select((eb) => eb.fn.coalesce('s.customer_id', 'ap.customer_id').as('customer_id'))
        .where('dp.device_key', '=', key)
        // A protection names exactly one holder (a check constraint).
        .$narrowType<{ customer_id: number }>()
        .execute(),
    )
  }
  if (keys.namePrefixes.length > 0) lookups.push(customersNamed(db, keys.namePrefixes))
  const found = await Promise.all(lookups)
  return [...new Set(found.flat().map((row) => row.customer_id))]
}

/**
 * Customers whose name has, for each prefix, a word starting with it (migration 0029): each prefix
 * an indexed range of `customer_name_words`, the ranges intersected.
 */
function customersNamed(db: Reader, prefixes: string[]) {
  const [first, ...rest] = prefixes.map((prefix) =>
    db
      .selectFrom('customer_name_words')
      .select('customer_id')
      .where('word', '>=', prefix)
      .where('word', '<', prefixEnd(prefix)),
  )
  if (!first) return Promise.resolve([])
  return rest
    .reduce((query, next) => query.intersect(next), first)
    .limit(200)
    .execute()
}

/** The first text after every one starting with `prefix` (its last character moved one up). */
function prefixEnd(prefix: string): string {
  const characters = [...prefix]
  const last = characters.pop() ?? ''
  return characters.join('') + String.fromCodePoint((last.codePointAt(0) ?? 0) + 1)
}

export async function documentsOfCustomers(db: Reader, ids: number[]): Promise<string[]> {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('customers').select('document').distinct().where('id', 'in', ids).execute()
  return rows.map((row) => row.document)
}

/** Every customer, under any partner, with one of these documents. */
export async function customersWithDocuments(db: Reader, documents: string[]) {
  if (documents.length === 0) return []
  return db
    .selectFrom('customers as c')
    .innerJoin('partners as p', 'p.id', 'c.partner_id')
    .select(['c.id', 'c.name', 'c.document', 'c.document_kind', 'c.partner_id', 'p.name as partner_name'])
    .where('c.document', 'in', documents)
    .orderBy('c.id')
    .limit(200)
    .execute()
}

/** The subscriptions and annual plans of these customers, with their partner, plan and model. */
export async function contractsOfCustomers(db: Reader, customerIds: number[]) {
  if (customerIds.length === 0) return { subscriptions: [], annualPlans: [] }
  const [subscriptions, annualPlans] = await Promise.all([
    db
      .selectFrom('subscriptions as s')
      .innerJoin('partners as p', 'p.id', 's.partner_id')
      .innerJoin('plans as pl', 'pl.id', 's.plan_id')
      .innerJoin('models as m', 'm.id', 's.model_id')
      .select([
        's.id',
        's.customer_id',
        's.partner_id',
        'p.name as partner_name',
        's.policy_number',
        's.status',
        'pl.name as plan_name',
        's.model_id',
        'm.name as model_name',
        's.serial_number',
        's.created_at',
      ])
      .where('s.customer_id', 'in', customerIds)
      .orderBy('s.id')
      .limit(500)
      .execute(),
    db
      .selectFrom('annual_plans as a')
      .innerJoin('partners as p', 'p.id', 'a.partner_id')
      .innerJoin('plans as pl', 'pl.id', 'a.plan_id')
      .innerJoin('models as m', 'm.id', 'a.model_id')
      .select([
        'a.id',
        'a.customer_id',
        'a.partner_id',
        'p.name as partner_name',
        'a.policy_number',
        'a.status',
        'pl.name as plan_name',
        'a.model_id',
        'm.name as model_name',
        'a.imei',
        'a.starts_at',
        'a.ends_at',
        'a.created_at',
      ])
      .where('a.customer_id', 'in', customerIds)
      .orderBy('a.id')
      .limit(500)
      .execute(),
  ])
  return { subscriptions, annualPlans }
}
