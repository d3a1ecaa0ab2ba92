import type { Config } from '../config.js'
import type { Reader, Trx } from '../db/database.js'
import type { PartnerContext } from '../modules/auth/partner-context.js'
import { createCustomer } from '../modules/customers/customer.service.js'
import { renderingContext } from '../modules/events/event.service.js'
import { contractSubscription } from '../modules/subscriptions/subscription.service.js'
import { notifyInstallmentPayment } from '../modules/subscriptions/subscription-payment.service.js'

// The demo's contract in force (README, Claims walkthrough): a subscription of the external partner
// whose installment 1 was paid a week before the demo was loaded, so that a claim can be opened on
// it at once, as the `openClaim` example and the README do. Being the first subscription of a fresh
// demo, it is subscription 1, the one the example names.

export const DEMO_CONTRACT = {
  customer: { name: 'Ana Souza', document: '714.602.380-01', email: 'ana.souza@example.com' },
  plan: 'Proteção Total 12x',
  model: 'iPhone 16 Pro',
  serialNumber: 'F2LXK0DEMO01',
  paidDaysAgo: 7,
} as const

const DAY_MS = 86_400_000

/** When the contract's installment 1 was paid: where the external partner's demo history starts. */
export const demoContractPaidAt = (now: string): string =>
  new Date(Date.parse(now) - DEMO_CONTRACT.paidDaysAgo * DAY_MS).toISOString()

/** The contract, unless the partner already has its customer (a second `amparo demo` run). */
export async function ensureDemoContract(
  trx: Trx,
  partnerId: number,
  config: Pick<Config, 'publicUrl' | 'port' | 'timeZone'>,
  now: string,
): Promise<void> {
  const { customer, plan, model, serialNumber } = DEMO_CONTRACT
  const partner = await partnerContextOf(trx, partnerId)
  if (partner.gateway !== 'external') return
  const known = await trx
    .selectFrom('customers')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('document', '=', customer.document.replace(/\D/g, ''))
    .executeTakeFirst()
  if (known) return
  const planRow = await trx
    .selectFrom('plans')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('name', '=', plan)
    .executeTakeFirstOrThrow()
  const modelRow = await trx
    .selectFrom('models')
    .select('id')
    .where('name', '=', model)
    .executeTakeFirstOrThrow()

  const paidAt = new Date(demoContractPaidAt(now))
  const rendering = renderingContext(config)
  await createCustomer(trx, partnerId, { ...customer, phone: '(11) 91234-5678' }, paidAt.toISOString())
  const subscription = await contractSubscription(
    trx,
    partner,
    {
      plan_id: planRow.id,
      customer_document: customer.document,
      model_id: modelRow.id,
      serial_number: serialNumber,
    },
    { now: paidAt.toISOString(), realNow: now, timeZone: config.timeZone },
    rendering,
    rendering.base,
  )
  const first = await trx
    .selectFrom('installments')
    .select('id')
    .where('subscription_id', '=', subscription.id)
    .where('number', '=', 1)
    .executeTakeFirstOrThrow()
  await notifyInstallmentPayment(trx, partner, subscription.id, first.id, { now: paidAt, ...rendering })
}

/** The demo partner as its API requests know it. */
export function partnerContextOf(db: Reader, partnerId: number): Promise<PartnerContext> {
  return db
    .selectFrom('partners')
    .select([
      'id as partnerId',
      'gateway',
      'lmi_min_factor_bp as lmiMinFactorBp',
      'lmi_max_factor_bp as lmiMaxFactorBp',
    ])
    .where('id', '=', partnerId)
    .executeTakeFirstOrThrow()
}
