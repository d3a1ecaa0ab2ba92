import type { Reader } from '../../db/database.js'

// Minhas proteções (README, Portal do segurado): every contract of one CPF/CNPJ, under every
// partner, with what the page shows of it. Read only: a change goes through the contract's module.

export async function subscriptionsOfDocument(db: Reader, document: string) {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .innerJoin('partners as p', 'p.id', 's.partner_id')
    .innerJoin('plans as pl', 'pl.id', 's.plan_id')
    .innerJoin('models as m', 'm.id', 's.model_id')
    .leftJoin('shopkeepers as k', 'k.id', 's.store_id')
    .select([
      's.id',
      's.partner_id',
      's.customer_id',
      's.status',
      's.serial_number',
      's.policy_number',
      's.certificate_code',
      's.ends_on',
      's.created_at',
      's.lmi',
      's.monthly_premium',
      's.card_token',
      'p.name as partner_name',
      'p.gateway as partner_gateway',
      'p.clock_offset_seconds',
      'pl.name as plan_name',
      'pl.coverage_types',
      'm.name as model_name',
      'k.trading_name as store_name',
    ])
    .where('c.document', '=', document)
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .execute()
}

export async function installmentsOf(db: Reader, subscriptionIds: number[]) {
  if (subscriptionIds.length === 0) return []
  return db
    .selectFrom('installments')
    .select(['id', 'subscription_id', 'number', 'amount', 'due_date', 'status', 'paid_at'])
    .where('subscription_id', 'in', subscriptionIds)
    .orderBy('subscription_id')
    .orderBy('number')
    .execute()
}

export async function annualPlansOfDocument(db: Reader, document: string) {
  return db
    .selectFrom('annual_plans as a')
    .innerJoin('customers as c', 'c.id', 'a.customer_id')
    .innerJoin('partners as p', 'p.id', 'a.partner_id')
    .innerJoin('plans as pl', 'pl.id', 'a.plan_id')
    .innerJoin('models as m', 'm.id', 'a.model_id')
    .leftJoin('shopkeepers as k', 'k.id', 'a.store_id')
    .select([
      'a.id',
      'a.partner_id',
      'a.customer_id',
      'a.status',
      'a.imei',
      'a.policy_number',
      'a.certificate_code',
      'a.starts_at',
      'a.ends_at',
      'a.paid_at',
      'a.created_at',
      'a.lmi',
      'a.premium',
      'p.name as partner_name',
      'p.gateway as partner_gateway',
      'p.clock_offset_seconds',
      'pl.name as plan_name',
      'pl.coverage_types',
      'm.name as model_name',
      'k.trading_name as store_name',
    ])
    .where('c.document', '=', document)
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .execute()
}

/** The contract's partner and customer when it is the document's, else undefined (another's, or none). */
export async function contractOfDocument(
  db: Reader,
  document: string,
  kind: 'subscription' | 'annual_plan',
  id: number,
) {
  const query =
    kind === 'subscription'
      ? db
          .selectFrom('subscriptions as k')
          .innerJoin('customers as c', 'c.id', 'k.customer_id')
          .select(['k.id', 'k.partner_id', 'k.customer_id', 'k.created_at', 'c.document'])
      : db
          .selectFrom('annual_plans as k')
          .innerJoin('customers as c', 'c.id', 'k.customer_id')
          .select(['k.id', 'k.partner_id', 'k.customer_id', 'k.created_at', 'c.document'])
  const row = await query.where('k.id', '=', id).executeTakeFirst()
  if (!row || row.document !== document) return undefined
  const partner = await db
    .selectFrom('partners')
    .select([
      'name',
      'clock_offset_seconds',
      'gateway',
      'lmi_min_factor_bp as lmiMinFactorBp',
      'lmi_max_factor_bp as lmiMaxFactorBp',
    ])
    .where('id', '=', row.partner_id)
    .executeTakeFirstOrThrow()
  return {
    ...row,
    partner_name: partner.name,
    clock_offset_seconds: partner.clock_offset_seconds,
    partner: {
      partnerId: row.partner_id,
      gateway: partner.gateway,
      lmiMinFactorBp: partner.lmiMinFactorBp,
      lmiMaxFactorBp: partner.lmiMaxFactorBp,
    },
  }
}

/**
 * A PIX code of an installment or annual plan of the document's, with its partner's clock, else
 * undefined (another's, or none).
 */
export async function paymentCodeOfDocument(db: Reader, document: string, id: number) {
  return db
    .selectFrom('payment_codes as pc')
    .leftJoin('installments as i', 'i.id', 'pc.installment_id')
    .leftJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .leftJoin('annual_plans as a', 'a.id', 'pc.annual_plan_id')
    .innerJoin('customers as c', (join) =>
      join.on((eb) =>
        eb.or([eb('c.id', '=', eb.ref('s.customer_id')), eb('c.id', '=', eb.ref('a.customer_id'))]),
      ),
    )
    .innerJoin('partners as p', 'p.id', 'pc.partner_id')
    .selectAll('pc')
    .select('p.clock_offset_seconds')
    .where('pc.id', '=', id)
    .where('pc.method', '=', 'pix')
    .where('c.document', '=', document)
    .executeTakeFirst()
}

/** The claims of the document's contracts, newest first: their ids and partners. */
export async function claimsOfDocument(db: Reader, document: string) {
  return (
    db
      .selectFrom('claims as cl')
      .innerJoin('partners as p', 'p.id', 'cl.partner_id')
      .select([
        'cl.id',
        'cl.partner_id',
        'cl.customer_id',
        'cl.status',
        'cl.subscription_id',
        'cl.annual_plan_id',
        'p.name as partner_name',
        'p.clock_offset_seconds',
      ])
      // The claim's own copy of the document: its index, not a scan of every claim.
      .where('cl.customer_document', '=', document)
      .orderBy('cl.id', 'desc')
      .execute()
  )
}

/** One claim when it is on a contract of the document. */
export async function claimOfDocument(db: Reader, document: string, id: number) {
  return db
    .selectFrom('claims as cl')
    .innerJoin('partners as p', 'p.id', 'cl.partner_id')
    .select(['cl.id', 'cl.partner_id', 'cl.customer_id', 'p.name as partner_name', 'p.clock_offset_seconds'])
    .where('cl.id', '=', id)
    .where('cl.customer_document', '=', document)
    .executeTakeFirst()
}
