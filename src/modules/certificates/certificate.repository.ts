import type { Reader } from '../../db/database.js'
import { contractsWithParties } from '../contracts/contract.repository.js'

// What a certificate prints and what its verification answers, read from the subscription and
// annual plan tables (a join of other modules' tables is data-layer code: src/db/README.md).

/**
 * What both certificates print besides the contract's own columns: the plan, the customer, the
 * device, the partner and the store, joined as p, c, m, b, pa and st.
 */
const PARTIES = [
  'p.name as plan_name',
  'p.coverages',
  'p.coverage_types',
  'p.claim_notice_days',
  'c.name as customer_name',
  'c.document as customer_document',
  'c.document_kind as customer_document_kind',
  'm.name as model_name',
  'b.name as brand_name',
  'pa.name as partner_name',
  'st.trading_name as store_name',
  'st.registration_number as store_document',
  'st.city as store_city',
  'st.state as store_state',
] as const

/** The partner's subscription with everything its certificate shows; undefined when not theirs. */
export function findSubscriptionCertificate(db: Reader, partnerId: number, id: number) {
  return contractsWithParties(db, 'subscriptions', 's')
    .innerJoin('partners as pa', 'pa.id', 's.partner_id')
    .leftJoin('shopkeepers as st', 'st.id', 's.store_id')
    .leftJoin('installments as i', (join) =>
      join.onRef('i.subscription_id', '=', 's.id').on('i.number', '=', 1),
    )
    .select([
      's.id',
      's.status',
      's.ends_on',
      's.policy_number',
      's.certificate_code',
      's.serial_number',
      's.second_serial_number',
      's.lmi',
      's.franchise',
      's.monthly_premium',
      's.installments_count',
      'i.paid_at as first_paid_at',
      'i.paid_with',
      ...PARTIES,
    ])
    .where('s.partner_id', '=', partnerId)
    .where('s.id', '=', id)
    .executeTakeFirst()
}

export type SubscriptionCertificateRow = NonNullable<Awaited<ReturnType<typeof findSubscriptionCertificate>>>

/** The partner's annual plan with everything its certificate shows; undefined when not theirs. */
export function findAnnualPlanCertificate(db: Reader, partnerId: number, id: number) {
  return contractsWithParties(db, 'annual_plans', 'ap')
    .innerJoin('partners as pa', 'pa.id', 'ap.partner_id')
    .leftJoin('shopkeepers as st', 'st.id', 'ap.store_id')
    .select([
      'ap.id',
      'ap.status',
      'ap.starts_at',
      'ap.ends_at',
      'ap.policy_number',
      'ap.certificate_code',
      'ap.imei',
      'ap.imei_2',
      'ap.lmi',
      'ap.franchise',
      'ap.premium',
      'ap.payment_installments',
      'ap.paid_with',
      ...PARTIES,
    ])
    .where('ap.partner_id', '=', partnerId)
    .where('ap.id', '=', id)
    .executeTakeFirst()
}

export type AnnualPlanCertificateRow = NonNullable<Awaited<ReturnType<typeof findAnnualPlanCertificate>>>

/**
 * The contract a verification code belongs to: only what the public verification shows, and its
 * partner's sandbox clock offset (the status is read at the partner's time).
 */
export async function findByCertificateCode(db: Reader, code: string) {
  const subscription = await db
    .selectFrom('subscriptions as s')
    .leftJoin('installments as i', (join) =>
      join.onRef('i.subscription_id', '=', 's.id').on('i.number', '=', 1),
    )
    .innerJoin('partners as p', 'p.id', 's.partner_id')
    .select([
      's.status',
      's.ends_on',
      's.policy_number',
      'i.paid_at as first_paid_at',
      'p.clock_offset_seconds',
    ])
    .where('s.certificate_code', '=', code)
    .executeTakeFirst()
  if (subscription) return { kind: 'subscription' as const, ...subscription }
  const plan = await db
    .selectFrom('annual_plans as ap')
    .innerJoin('partners as p', 'p.id', 'ap.partner_id')
    .select(['ap.status', 'ap.starts_at', 'ap.ends_at', 'ap.policy_number', 'p.clock_offset_seconds'])
    .where('ap.certificate_code', '=', code)
    .executeTakeFirst()
  return plan && { kind: 'annual_plan' as const, ...plan }
}
