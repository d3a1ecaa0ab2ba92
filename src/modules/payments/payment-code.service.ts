import { randomBytes } from 'node:crypto'
import QRCode from 'qrcode'
import type { Db, Reader, Trx } from '../../db/database.js'
import type { CodeMethod } from '../../db/tables/payment-code.js'
import { retryingTransaction } from '../../db/transaction.js'
import { NotFoundError } from '../../shared/errors.js'
import { centsToAmount } from '../../shared/money.js'
import { formatTimestamp } from '../../shared/time.js'
import { atGateway, type CardPaymentContext } from './payment.service.js'
import {
  type CodeOf,
  countCodes,
  findCodeByImageToken,
  findCodeByReference,
  findPartnerCode,
  findPendingCode,
  insertCode,
  type PaymentCodeRow,
  transitionCode,
} from './payment-code.repository.js'
import {
  BOLETO_EXPIRES_AFTER_DAYS,
  CODE_FROM,
  codeExpiry,
  codeStatusAt,
  codeStatusOn,
  type IntentOutcome,
  PIX_EXPIRES_AFTER_SECONDS,
} from './payment-code.rules.js'
import type { BoletoPayer, PaymentGateway } from './payment-gateway.js'

// PIX codes and boletos (README, Going live: PIX and boleto): made by the own gateway as a
// PaymentIntent the customer pays outside Amparo, at most one pending per installment or plan, and
// paid when the gateway says its PaymentIntent succeeded (a Stripe event, or the sandbox's pay call).

export type { CodeOf, PaymentCodeRow }

/** What a product asks a code for. */
export interface CodeRequest {
  method: CodeMethod
  of: CodeOf
  partnerId: number
  /** The gateway's label (`metadata[amparo_reference]`): `subscription-3-installment-2`, `annual-plan-7`. */
  reference: string
  /** The prefix of the code's operation key, `<prefix>-<method>-<n>`. */
  keyPrefix: string
  amountCents: number
  /** A boleto's payer; none for PIX. */
  payer?: BoletoPayer
}

/**
 * The item's pending code if it has one that has not expired (`created: false`); else a new one: an
 * expired one is closed first, then the gateway makes the new one (outside any transaction) with a
 * key counted from the codes the item had, so two requests at once send one key, get one
 * PaymentIntent, and one insert wins: the other answers the winner's code.
 */
export async function requestCode(
  db: Db,
  gateway: PaymentGateway,
  request: CodeRequest,
  { clock, timeZone, log }: Pick<CardPaymentContext, 'clock' | 'timeZone' | 'log'>,
): Promise<{ code: PaymentCodeRow; created: boolean }> {
  const now = clock.now()
  const current = await findPendingCode(db, request.of)
  if (current && codeStatusAt(current, now.toISOString()) === 'pending')
    return { code: current, created: false }
  if (current) {
    await retryingTransaction(db, (trx) =>
      transitionCode(trx, { id: current.id }, CODE_FROM.expired, 'expired', now.toISOString()),
    )
  }
  const charge = {
    partnerId: request.partnerId,
    reference: request.reference,
    amountCents: request.amountCents,
    idempotencyKey: `${request.keyPrefix}-${request.method}-${(await countCodes(db, request.of)) + 1}`,
  }
  const details = { reference: request.reference, method: request.method }
  const made = await atGateway(log, details, () =>
    request.method === 'pix'
      ? gateway.createPix(charge, PIX_EXPIRES_AFTER_SECONDS)
      : gateway.createBoleto(charge, request.payer as BoletoPayer, BOLETO_EXPIRES_AFTER_DAYS),
  )
  const at = clock.now().toISOString()
  const row = {
    partner_id: request.partnerId,
    method: request.method,
    installment_id: 'installmentId' in request.of ? request.of.installmentId : null,
    annual_plan_id: 'annualPlanId' in request.of ? request.of.annualPlanId : null,
    amount: request.amountCents,
    status: 'pending' as const,
    gateway_reference: made.reference,
    code: made.code,
    document_url: made.documentUrl,
    image_token: randomBytes(18).toString('base64url'),
    expires_at: codeExpiry(request.method, now, timeZone),
    paid_at: null,
    created_at: at,
    updated_at: at,
  }
  const inserted = await retryingTransaction(db, (trx) => insertCode(trx, row))
  if (inserted) return { code: inserted, created: true }
  const other = (await findPendingCode(db, request.of)) ?? (await findCodeByReference(db, made.reference))
  if (!other) throw new Error(`payment code of ${request.reference} neither inserted nor found`)
  return { code: other, created: false }
}

/**
 * The gateway's outcome of a PaymentIntent applied to its code, once: the code as this call moved
 * it (`paid` also from expired, failed or canceled: the money was taken), or undefined when the
 * PaymentIntent is no code's or the code was already past it (a repeat, or an outcome arriving after
 * a later one).
 */
export async function settleCode(
  trx: Trx,
  reference: string,
  outcome: IntentOutcome,
  at: string,
): Promise<PaymentCodeRow | undefined> {
  const to = codeStatusOn(outcome)
  return transitionCode(trx, { reference }, CODE_FROM[to], to, at)
}

/** Whether a PaymentIntent is a PIX code's or a boleto's (not a card charge's). */
export async function isCodeReference(db: Reader, reference: string): Promise<boolean> {
  return (await findCodeByReference(db, reference)) !== undefined
}

/** The partner's code by id (404 otherwise): the sandbox pays it. */
export async function requirePartnerCode(db: Reader, partnerId: number, id: number): Promise<PaymentCodeRow> {
  const code = await findPartnerCode(db, partnerId, id)
  if (!code) throw new NotFoundError('Payment')
  return code
}

/** The QR image of a PIX code, by its random token (404 for any other): a PNG any phone can scan. */
export async function pixImage(db: Reader, token: string): Promise<Buffer> {
  const code = await findCodeByImageToken(db, token)
  if (code?.method !== 'pix') throw new NotFoundError('PIX code')
  return QRCode.toBuffer(code.code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 })
}

/** A PIX code as the API answers it (the `PixCode` schema). */
export function pixResource(code: PaymentCodeRow, { base, timeZone, now }: CodeView) {
  return {
    id: code.id,
    status: codeStatusAt(code, now),
    amount: centsToAmount(code.amount),
    qr_code: code.code,
    qr_code_png: `${base}/pix/${code.image_token}.png`,
    expires_at: formatTimestamp(code.expires_at, timeZone),
  }
}

/** A boleto as the API answers it (the `Boleto` schema). */
export function boletoResource(code: PaymentCodeRow, { timeZone, now }: CodeView) {
  return {
    id: code.id,
    status: codeStatusAt(code, now),
    amount: centsToAmount(code.amount),
    number: code.code,
    pdf_url: code.document_url ?? '',
    expires_at: formatTimestamp(code.expires_at, timeZone),
  }
}

export interface CodeView {
  base: string
  timeZone: string
  /** UTC ISO instant the status is read at. */
  now: string
}
