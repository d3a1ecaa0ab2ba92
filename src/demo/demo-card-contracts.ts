import type { Config } from '../config.js'
import type { Db, Reader, Trx } from '../db/database.js'
import { contractAnnualPlan } from '../modules/annual-plans/annual-plan.service.js'
import { payAnnualPlanByCard } from '../modules/annual-plans/annual-plan-payment.service.js'
import type { PartnerContext } from '../modules/auth/partner-context.js'
import { createCustomer } from '../modules/customers/customer.service.js'
import { renderingContext } from '../modules/events/event.service.js'
import { gatewayOf } from '../modules/payments/gateway-factory.js'
import { contractSubscription } from '../modules/subscriptions/subscription.service.js'
import { payFirstInstallmentByCard } from '../modules/subscriptions/subscription-payment.service.js'

// The own-gateway demo partner's contracts in force (docs/decisions.md, Demo data): a subscription
// and an annual plan of one customer, contracted and paid by card a week before the demo was loaded,
// so that claims, certificates and the console have a card-paid contract of that partner too. They
// are contracted in the demo's load transaction and charged after it, through the configured
// gateway exactly as `POST /subscriptions/{id}/payment` and `POST /annual-plans/{id}/payment` charge
// (a gateway call is never made inside a transaction). Only with the sandbox gateway: a demo load
// never charges a real gateway, Stripe's test mode included.

export const DEMO_CARD_CONTRACTS = {
  customer: { name: 'Bruno Carvalho', document: '348.761.205-44', email: 'bruno.carvalho@example.com' },
  subscription: { plan: 'Proteção Essencial 12x', model: 'Galaxy S25', serialNumber: '356789120334188' },
  annualPlan: { plan: 'Proteção Anual', model: 'iPhone 16', imei: '353918110462732' },
  /** A sandbox card that approves (README, Subscriptions: the sandbox's test cards). */
  card: { number: '5555555555554444', cvv: '123' },
  paidDaysAgo: 7,
} as const

const DAY_MS = 86_400_000

type DemoConfig = Pick<
  Config,
  | 'publicUrl'
  | 'port'
  | 'timeZone'
  | 'paymentGateway'
  | 'stripe'
  | 'paymentClaimSeconds'
  | 'cardDeclineLimits'
>

/** Whether the demo's own-gateway partner gets card-paid contracts: only on the sandbox gateway. */
export const demoChargesCards = (config: Pick<Config, 'paymentGateway'>) =>
  config.paymentGateway === 'sandbox'

/**
 * Contracts the subscription and the annual plan, both awaiting payment, unless the partner already
 * has their customer (a second `amparo demo` run). `payDemoCardContracts` pays them afterwards.
 */
export async function contractDemoCardContracts(
  trx: Trx,
  partner: PartnerContext,
  config: DemoConfig,
  now: string,
): Promise<void> {
  if (partner.gateway !== 'own' || !demoChargesCards(config)) return
  if (await cardCustomer(trx, partner)) return
  const { customer, subscription, annualPlan } = DEMO_CARD_CONTRACTS
  const planId = (name: string) =>
    trx
      .selectFrom('plans')
      .select('id')
      .where('partner_id', '=', partner.partnerId)
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
  const modelId = (name: string) =>
    trx.selectFrom('models').select('id').where('name', '=', name).executeTakeFirstOrThrow()
  /** A contract's body as the API takes it: the partner's plan and the model, by name, and the customer. */
  const terms = async ({ plan, model }: { plan: string; model: string }) => ({
    plan_id: (await planId(plan)).id,
    customer_document: customer.document,
    model_id: (await modelId(model)).id,
  })

  const at = paidAt(now)
  const rendering = renderingContext(config)
  await createCustomer(trx, partner.partnerId, { ...customer, phone: '(21) 98765-4321' }, at)
  const time = { now: at, realNow: now, timeZone: config.timeZone }
  const subscriptionBody = { ...(await terms(subscription)), serial_number: subscription.serialNumber }
  await contractSubscription(trx, partner, subscriptionBody, time, rendering, rendering.base)
  const annualPlanBody = { ...(await terms(annualPlan)), imei: annualPlan.imei }
  await contractAnnualPlan(trx, partner, annualPlanBody, time, rendering)
}

/**
 * Charges, outside any transaction, what `contractDemoCardContracts` left awaiting payment: on a
 * first load both contracts, after a load interrupted between the two steps what is still unpaid.
 */
export async function payDemoCardContracts(
  db: Db,
  partner: PartnerContext,
  config: DemoConfig,
  now: string,
): Promise<void> {
  if (partner.gateway !== 'own' || !demoChargesCards(config)) return
  const owner = await cardCustomer(db, partner)
  if (!owner) return
  const { card } = DEMO_CARD_CONTRACTS
  const at = new Date(paidAt(now))
  const context = {
    gateway: await gatewayOf(config, db),
    clock: { now: () => at },
    claimSeconds: config.paymentClaimSeconds,
    cardDeclineLimits: config.cardDeclineLimits,
    // A failure is thrown, and the demo's load with it.
    log: { error: () => {}, warn: () => {} },
    ...renderingContext(config),
  }
  const expiry = `12${String((at.getUTCFullYear() + 3) % 100).padStart(2, '0')}`

  /** The customer's contracts of `table` still in `status` (awaiting their first payment). */
  const unpaid = (table: 'subscriptions' | 'annual_plans', status: 'pending' | 'awaiting_payment') =>
    db
      .selectFrom(table)
      .select('id')
      .where('partner_id', '=', partner.partnerId)
      .where('customer_id', '=', owner.id)
      .where('status', '=', status)
      .execute()
  for (const { id } of await unpaid('subscriptions', 'pending'))
    await payFirstInstallmentByCard(db, partner, id, { ...card, expiry }, context)
  // An annual plan's payment takes the expiry as MM/YY.
  const annualPlanCard = { ...card, expiry: `${expiry.slice(0, 2)}/${expiry.slice(2)}` }
  for (const { id } of await unpaid('annual_plans', 'awaiting_payment'))
    await payAnnualPlanByCard(db, partner, id, annualPlanCard, 1, context)
}

/** The customer of the partner's card-paid contracts, once the demo contracted them. */
const cardCustomer = (db: Reader, partner: PartnerContext) =>
  db
    .selectFrom('customers')
    .select('id')
    .where('partner_id', '=', partner.partnerId)
    .where('document', '=', DEMO_CARD_CONTRACTS.customer.document.replace(/\D/g, ''))
    .executeTakeFirst()

const paidAt = (now: string) =>
  new Date(Date.parse(now) - DEMO_CARD_CONTRACTS.paidDaysAgo * DAY_MS).toISOString()
