import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction, type Transactor } from '../../db/transaction.js'
import { GatewayModeError, NotFoundError, StateError } from '../../shared/errors.js'
import { type Clock, formatDate, shiftedClock } from '../../shared/time.js'
import { requestAnnualPlanCode } from '../annual-plans/annual-plan-code.service.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { RenderingContext } from '../events/event.service.js'
import { recordAudit } from '../operators/audit.service.js'
import type { CardInput } from '../payments/card.js'
import type { CardDeclineLimits } from '../payments/payment.service.js'
import { type PaymentCodeRow, pixResource } from '../payments/payment-code.service.js'
import type { ChargeResult, PaymentGateway } from '../payments/payment-gateway.js'
import { assertCardReplaceable, statusAt } from '../subscriptions/subscription.rules.js'
import { requireSubscriptionState } from '../subscriptions/subscription.service.js'
import { type CardUpdateStep, updateSubscriptionCard } from '../subscriptions/subscription-card.service.js'
import { requestInstallmentPix } from '../subscriptions/subscription-code.service.js'
import { payFirstInstallmentByCard } from '../subscriptions/subscription-payment.service.js'
import { payableNow } from './portal.rules.js'
import type { InsuredOrigin } from './portal-claims.service.js'
import { installmentsOf, paymentCodeOfDocument } from './portal-contracts.repository.js'
import { type ContractKind, requirePortalContract } from './portal-contracts.service.js'
import type { PortalInsured } from './portal-session.service.js'

// Paying from the insured's page (README, Portal do segurado): the partner API's own card update,
// first payment and PIX codes, on an own-gateway contract of the insured's document, each change
// audited as the insured's. No card number reaches the audit log or a log line.

/** What a payment call takes from its request and the portal's configuration. */
export interface PayingCall extends RenderingContext {
  origin: InsuredOrigin
  gateway: PaymentGateway | null
  /** Real time: each contract is paid at its partner's clock (its sandbox offset in test). */
  clock: Clock
  sandboxClocks: boolean
  claimSeconds: number
  cardDeclineLimits: CardDeclineLimits
  log: { error(details: object, message: string): void; warn(details: object, message: string): void }
}

export interface PayingContract {
  kind: ContractKind
  id: number
  customer_id: number
  partner: PartnerContext
  /** The partner's clock. */
  clock: Clock
}

/** The insured's own-gateway contract (404 another's; 422 `errors.gateway` when its partner collects). */
export async function payingContract(
  db: Db,
  insured: PortalInsured,
  kind: ContractKind,
  id: number,
  call: Pick<PayingCall, 'clock' | 'sandboxClocks'>,
): Promise<PayingContract> {
  const found = await requirePortalContract(db, insured, kind, id)
  if (found.partner.gateway !== 'own')
    throw new GatewayModeError(
      'This contract’s payments are collected by its partner: pay through the partner.',
    )
  const clock = call.sandboxClocks ? shiftedClock(call.clock, found.clock_offset_seconds) : call.clock
  return { kind, id, customer_id: found.customer_id, partner: found.partner, clock }
}

/**
 * Trocar cartão: the partner API's card update (operation `updateSubscriptionCard`): verified
 * without a charge, kept for the recurrence, then every due installment charged to it. 402 when
 * declined. Audited in the transaction that ends it.
 */
export async function replaceCard(db: Db, contract: PayingContract, card: CardInput, call: PayingCall) {
  await updateSubscriptionCard(db, contract.partner, contract.id, card, {
    ...cardContext(contract, call),
    settleIn: auditedStep(db, contract, call, 'portal.card_update'),
  })
}

/**
 * Pagar parcela: installment 1 of a pending subscription through the first payment (operation
 * `payFirstInstallmentByCard`); on one in force, the card update, which charges every installment
 * due and unpaid to the card it keeps. Nothing due → 422.
 */
export async function payByCard(db: Db, contract: PayingContract, card: CardInput, call: PayingCall) {
  const now = contract.clock.now()
  const subscription = await requireSubscriptionState(db, contract.partner.partnerId, contract.id)
  const status = statusAt(subscription, now, call.timeZone)
  if (status === 'pending') {
    const settleIn: Transactor<ChargeResult> = (work) =>
      retryingTransaction(db, async (trx) => {
        const result = await work(trx)
        const after = result.approved
          ? { outcome: 'paid' }
          : { outcome: 'declined', decline_code: result.declineCode }
        await audit(trx, contract, call, 'portal.pay_by_card', after)
        return result
      })
    await payFirstInstallmentByCard(db, contract.partner, contract.id, card, {
      ...cardContext(contract, call),
      settleIn,
      requestKey: null,
    })
    return
  }
  assertCardReplaceable(status)
  const today = formatDate(now, call.timeZone)
  const due = (await installmentsOf(db, [contract.id])).filter((i) => payableNow(status, i, today))
  if (due.length === 0) throw new StateError('Nothing on this subscription is due and unpaid.')
  await updateSubscriptionCard(db, contract.partner, contract.id, card, {
    ...cardContext(contract, call),
    settleIn: auditedStep(db, contract, call, 'portal.pay_by_card'),
  })
}

/** Pagar com PIX: the partner API's code of an installment or of an annual plan; a new one audited. */
export async function requestPix(
  db: Db,
  contract: PayingContract,
  installmentId: number | null,
  call: PayingCall,
): Promise<{ code: PaymentCodeRow; created: boolean }> {
  const context = { gateway: call.gateway, clock: contract.clock, timeZone: call.timeZone, log: call.log }
  const answer =
    contract.kind === 'subscription' && installmentId !== null
      ? await requestInstallmentPix(db, contract.partner, contract.id, installmentId, context)
      : await requestAnnualPlanCode(db, contract.partner, contract.id, 'pix', context)
  if (answer.created) {
    const after = { payment_id: answer.code.id, method: 'pix', installment_id: installmentId }
    await retryingTransaction(db, (trx) => audit(trx, contract, call, 'portal.pix_request', after))
  }
  return answer
}

/** One of the insured's PIX codes, read at its partner's clock; another's → 404. */
export async function insuredPixCode(
  db: Db,
  insured: PortalInsured,
  id: number,
  call: Pick<PayingCall, 'clock' | 'sandboxClocks' | 'timeZone'>,
) {
  const found = await paymentCodeOfDocument(db, insured.document, id)
  if (!found) throw new NotFoundError('PIX code')
  const { clock_offset_seconds: offset, ...code } = found
  const clock = call.sandboxClocks ? shiftedClock(call.clock, offset) : call.clock
  return portalPix(code, { timeZone: call.timeZone, now: clock.now() })
}

/** A PIX code as the portal answers it: its QR image served by the portal itself (its CSP allows only itself). */
export function portalPix(code: PaymentCodeRow, { timeZone, now }: { timeZone: string; now: Date }) {
  return pixResource(code, { base: '/api', timeZone, now: now.toISOString() })
}

function cardContext(contract: PayingContract, call: PayingCall) {
  return {
    gateway: call.gateway,
    clock: contract.clock,
    timeZone: call.timeZone,
    base: call.base,
    claimSeconds: call.claimSeconds,
    cardDeclineLimits: call.cardDeclineLimits,
    log: call.log,
  }
}

/** The card update's steps, the one that ends it audited with its outcome in its transaction. */
function auditedStep(
  db: Db,
  contract: PayingContract,
  call: PayingCall,
  action: string,
): Transactor<CardUpdateStep> {
  return (work) =>
    retryingTransaction(db, async (trx) => {
      const step = await work(trx)
      if (step === 'continues') return step
      const after =
        step === 'updated' ? { outcome: 'approved' } : { outcome: 'declined', decline_code: step.declined }
      await audit(trx, contract, call, action, after)
      return step
    })
}

async function audit(trx: Trx, contract: PayingContract, call: PayingCall, action: string, after: object) {
  await recordAudit(trx, {
    operator: { insured: contract.customer_id },
    action,
    recordType: contract.kind,
    recordId: String(contract.id),
    before: null,
    after,
    ip: call.origin.ip,
    at: contract.clock.now().toISOString(),
  })
}
