import { randomBytes } from 'node:crypto'
import { cardBrand } from './card.js'
import { GatewayRefusedError } from './payment.errors.js'
import type {
  BoletoPayer,
  CardData,
  CardVerification,
  ChargeResult,
  CodeCharge,
  FirstCharge,
  GatewayLabel,
  PaymentGateway,
  PendingCode,
  SavedCardResult,
} from './payment-gateway.js'

/** The sandbox's test cards (README, "Subscriptions"); any other Luhn-valid number approves. */
export const SANDBOX_DECLINES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
}
/** Approves the first charge and declines every later one: the recurrence's failure path. */
export const APPROVES_ONCE = '4000000000000341'

const random = (prefix: string, bytes = 8) => `${prefix}_${randomBytes(bytes).toString('hex')}`

/**
 * The test environment's gateway. Saved cards (tokens) carry the behaviour of their card, so several
 * worker processes agree without shared memory; a real gateway keeps that on its side:
 * `tok_test_approves_…`, `tok_test_declines_…` (approves its first charge only) and
 * `tok_test_refuses-<decline code>_…` (declines every charge and verification).
 */
export class SandboxGateway implements PaymentGateway {
  async createCustomer(_id: number, _key: string, _label: GatewayLabel): Promise<string> {
    return random('cus_test')
  }

  async saveCard(card: CardData, _key: string, _label: GatewayLabel): Promise<SavedCardResult> {
    const declineCode = SANDBOX_DECLINES[card.number]
    const behaviour = declineCode
      ? `refuses-${declineCode}`
      : card.number === APPROVES_ONCE
        ? 'declines'
        : 'approves'
    const token = random(`tok_test_${behaviour}`, 12)
    return { approved: true, token, brand: cardBrand(card.number), last4: card.number.slice(-4) }
  }

  async chargeCard(charge: FirstCharge): Promise<ChargeResult> {
    const declineCode = refusalOf(charge.paymentMethod)
    return declineCode
      ? { approved: false, declineCode, transactionId: random('txn_test') }
      : { approved: true, transactionId: random('txn_test') }
  }

  async chargeSaved(
    saved: { token: string },
    _amountCents: number,
    _key: string,
    _label: GatewayLabel,
  ): Promise<ChargeResult> {
    if (!saved.token.startsWith('tok_test_'))
      return { approved: false, declineCode: 'invalid_token', transactionId: null }
    return saved.token.startsWith('tok_test_approves_')
      ? { approved: true, transactionId: random('txn_test') }
      : {
          approved: false,
          declineCode: refusalOf(saved.token) ?? 'card_declined',
          transactionId: random('txn_test'),
        }
  }

  /** Declining cards are refused here too; the approve-once card passes (nothing is charged). */
  async verifyCard(saved: { token: string }, _key: string, _label: GatewayLabel): Promise<CardVerification> {
    const declineCode = refusalOf(saved.token)
    return declineCode ? { approved: false, declineCode } : { approved: true }
  }

  async detachCard(_token: string, _key: string): Promise<void> {}

  /** Refunds at once any charge it made. */
  async refund(
    paymentReference: string,
    _amount: number,
    _key: string,
    _label: GatewayLabel,
  ): Promise<string> {
    if (!paymentReference.startsWith('txn_test_'))
      throw new GatewayRefusedError('The sandbox made no such charge')
    return random('re_test')
  }

  async createPix(charge: CodeCharge, _expiresAfterSeconds: number): Promise<PendingCode> {
    const reference = random('pi_test')
    return { reference, code: sandboxPixCode(reference, charge.amountCents), documentUrl: null }
  }

  /** A boleto's 47-digit line; its PDF is a placeholder address the sandbox never serves. */
  async createBoleto(_charge: CodeCharge, _payer: BoletoPayer, _days: number): Promise<PendingCode> {
    const reference = random('pi_test')
    const digits = Array.from(randomBytes(47), (b) => String(b % 10)).join('')
    return { reference, code: digits, documentUrl: `https://sandbox.amparo.test/boletos/${reference}.pdf` }
  }
}

/**
 * A PIX copia-e-cola as the Central Bank's BR Code lays it out (EMV fields, `BR.GOV.BCB.PIX`), for a
 * made-up key: it reads like a real one and pays nothing; `POST /sandbox/payments/{id}/pay` pays it.
 */
function sandboxPixCode(reference: string, amountCents: number): string {
  const amount = (amountCents / 100).toFixed(2)
  const field = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`
  const account = field('00', 'BR.GOV.BCB.PIX') + field('01', `sandbox-${reference}@amparo.test`)
  return (
    field('00', '01') +
    field('26', account) +
    field('52', '0000') +
    field('53', '986') +
    field('54', amount) +
    field('58', 'BR') +
    field('59', 'AMPARO SANDBOX') +
    field('60', 'SAO PAULO') +
    field('62', field('05', reference.slice(-25))) +
    '6304'
  )
}

/** The decline code a sandbox token always answers, if its card is one of the declining ones. */
function refusalOf(token: string): string | undefined {
  return /^tok_test_refuses-([a-z_]+?)_[0-9a-f]+$/.exec(token)?.[1]
}
