import { randomBytes } from 'node:crypto'
import type { Db, Trx } from '../../db/database.js'
import type { CodeMethod } from '../../db/tables/payment-code.js'
import { ValidationError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { verificationCode } from '../certificates/certificate.rules.js'
import type { RenderingContext } from '../events/event.service.js'
import type { CardPaymentContext } from '../payments/payment.service.js'
import { type PaymentCodeRow, requestCode } from '../payments/payment-code.service.js'
import { type BoletoPayer, cardGateway } from '../payments/payment-gateway.js'
import { findAnnualPlanView } from './annual-plan.repository.js'
import { assertAwaitingPayment, paymentAt } from './annual-plan.rules.js'
import { requireAnnualPlanRow } from './annual-plan.service.js'
import { markAnnualPlanPaid } from './annual-plan-lifecycle.service.js'
import { recordInLedger } from './annual-plan-payment.repository.js'

/**
 * A PIX code or boleto for the premium of a plan awaiting payment (README, Going live: PIX and
 * boleto): the partner's plan (404), the own gateway (422 `errors.gateway`), awaiting payment (422
 * `errors.status`), and for a boleto the customer's full address (422 `errors.customer.address`).
 * Answers its pending code of that method, or a new one.
 */
export async function requestAnnualPlanCode(
  db: Db,
  partner: PartnerContext,
  id: number,
  method: CodeMethod,
  context: Pick<CardPaymentContext, 'gateway' | 'clock' | 'timeZone' | 'log'>,
): Promise<{ code: PaymentCodeRow; created: boolean }> {
  const plan = await requireAnnualPlanRow(db, partner.partnerId, id)
  const gateway = cardGateway(partner, context.gateway)
  assertAwaitingPayment(plan, context.clock.now().toISOString())
  const payer = method === 'boleto' ? await boletoPayer(db, partner.partnerId, id) : undefined
  return requestCode(
    db,
    gateway,
    {
      method,
      of: { annualPlanId: id },
      partnerId: partner.partnerId,
      reference: `annual-plan-${id}`,
      keyPrefix: `annual-plan-${id}`,
      amountCents: plan.premium,
      payer,
    },
    context,
  )
}

/** Who pays a plan's boleto: its customer, whose address the boleto must print. */
async function boletoPayer(db: Db, partnerId: number, id: number): Promise<BoletoPayer> {
  const view = await findAnnualPlanView(db, partnerId, id)
  const { customer_street: street, customer_city: city, customer_state: state } = view ?? {}
  const zip = view?.customer_zipcode
  if (!view || !street || !city || !state || !zip) {
    throw new ValidationError({
      'customer.address': ['A boleto needs the customer’s address (street, city, state and zip code).'],
    })
  }
  const line1 = view.customer_number === null ? street : `${street}, ${view.customer_number}`
  return {
    name: view.customer_name,
    email: view.customer_email,
    document: view.customer_document,
    address: { line1, city, state, postalCode: zip },
  }
}

/**
 * Pays the plan of a code the gateway says was paid (`paid_with` its method): covered from tomorrow,
 * with `annual_plan.paid` and its ledger row, once; false when it could not be paid (paid another
 * way, or canceled, meanwhile).
 */
export async function payAnnualPlanByCode(
  trx: Trx,
  code: PaymentCodeRow,
  at: string,
  rendering: RenderingContext,
): Promise<boolean> {
  if (code.annual_plan_id === null) return false
  const payment = paymentAt(code.annual_plan_id, at, rendering.timeZone, verificationCode(randomBytes))
  const paid = await markAnnualPlanPaid(trx, code.annual_plan_id, payment, code.method, rendering)
  if (!paid) return false
  // The ledger's `card` is the own gateway's route (a refund goes back through it); `paid_with` says how.
  const entry = { route: 'card', outcome: 'approved', transactionId: code.gateway_reference } as const
  await recordInLedger(trx, paid, entry, at)
  return true
}
