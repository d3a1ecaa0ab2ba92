import Stripe from 'stripe'
import { cardBrand } from './card.js'
import { PaymentInProgressError } from './payment.service.js'
import {
  type CardCharge,
  type CardData,
  type CardVerification,
  type ChargeResult,
  type FirstCharge,
  GatewayRefusedError,
  GatewayUnavailableError,
  type PaymentGateway,
} from './payment-gateway.js'

/** The Stripe API version the adapter is written against, pinned so an account upgrade changes nothing. */
export const STRIPE_API_VERSION = '2026-10-28.endive'

/** Every gateway call settles within this (CONTRACT §16); claims last longer (at least 35 s). */
const CALL_BUDGET_MS = 29_000

export interface StripeGatewayOptions {
  secretKey: string
  /** A Stripe-compatible server's base address (tests); empty → api.stripe.com. */
  apiUrl: string
  /**
   * Per HTTP attempt, and one retry of a connection error or 5xx with the same idempotency key:
   * 2 × 12 s and the library's 0.5 s back-off stay within the 30 s a call may take.
   */
  timeoutMs: number
  maxNetworkRetries: number
  /** Prefixes every idempotency key: one Stripe account serving two databases keeps them apart. */
  keyPrefix: string
}

export const STRIPE_DEFAULTS = { timeoutMs: 12_000, maxNetworkRetries: 1, keyPrefix: 'amparo' }

/** A 402 `card_error` of Stripe: the decline to answer, and the object it left behind if any. */
function declineOf(error: unknown): { declineCode: string; transactionId: string | null } | null {
  if (!(error instanceof Stripe.errors.StripeCardError)) return null
  const raw = error.raw as { payment_intent?: { id?: string } }
  return {
    declineCode: error.decline_code || error.code || 'card_declined',
    transactionId: raw.payment_intent?.id ?? null,
  }
}

/**
 * Anything but a decline: Stripe could not answer (timeout, connection, 5xx, revoked key, rate
 * limit) → GatewayUnavailableError, with Stripe's request id for the log; an idempotency key reused
 * with other card data → 409; a request Stripe refused as malformed → a server fault. Never the
 * card: Stripe's messages do not repeat it, and only these fields are kept.
 */
function unavailable(error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error as Error
  const details = {
    stripe_type: error.type,
    stripe_code: error.code ?? null,
    stripe_status: error.statusCode ?? null,
    stripe_request_id: error.requestId ?? null,
  }
  const transient =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError ||
    error instanceof Stripe.errors.StripeRateLimitError
  if (transient) return new GatewayUnavailableError(5, details)
  // The same charge attempt retried with other card data: the attempt whose answer was lost is
  // only settled by the same request; the partner hears so, not a server fault.
  if (error instanceof Stripe.errors.StripeIdempotencyError) {
    return new PaymentInProgressError(
      'An earlier attempt of this payment, with other card data, is unresolved: retry it with the same card.',
    )
  }
  return Object.assign(
    new GatewayRefusedError(`Stripe refused the request (${error.type}, ${error.code ?? 'no code'})`),
    { gateway: details },
  )
}

/**
 * The own gateway on Stripe, through its official library: exactly the calls of CONTRACT §16,
 * each with an idempotency key derived from what it settles.
 */
export class StripeGateway implements PaymentGateway {
  private readonly stripe: Stripe
  private readonly keyPrefix: string

  constructor({ secretKey, apiUrl, timeoutMs, maxNetworkRetries, keyPrefix }: StripeGatewayOptions) {
    const url = apiUrl ? new URL(apiUrl) : null
    this.keyPrefix = keyPrefix
    this.stripe = new Stripe(secretKey, {
      apiVersion: STRIPE_API_VERSION,
      timeout: timeoutMs,
      maxNetworkRetries,
      telemetry: false,
      appInfo: { name: 'amparo' },
      ...(url && {
        host: url.hostname,
        protocol: url.protocol === 'http:' ? 'http' : 'https',
        port: Number(url.port || (url.protocol === 'http:' ? 80 : 443)),
      }),
    })
  }

  private key(key: string) {
    return { idempotencyKey: `${this.keyPrefix}-${key}` }
  }

  async createCustomer(amparoCustomerId: number, idempotencyKey: string): Promise<string> {
    try {
      const customer = await this.stripe.customers.create(
        { metadata: { amparo_customer_id: String(amparoCustomerId) } },
        this.key(idempotencyKey),
      )
      return customer.id
    } catch (error) {
      throw unavailable(error)
    }
  }

  async chargeCard(card: CardData, charge: FirstCharge): Promise<CardCharge> {
    const started = Date.now()
    const installments = charge.installments ?? 1
    const saved = { token: '', brand: cardBrand(card.number), last4: card.number.slice(-4) }
    let intent: Stripe.PaymentIntent
    try {
      intent = await this.stripe.paymentIntents.create(
        {
          amount: charge.amountCents,
          currency: 'brl',
          customer: charge.customerId,
          confirm: true,
          payment_method_data: cardMethod(card) as Stripe.PaymentIntentCreateParams.PaymentMethodData,
          ...(charge.saveForLater && { setup_future_usage: 'off_session' as const }),
          ...(installments > 1 && {
            payment_method_options: {
              card: {
                installments: { plan: { count: installments, interval: 'month', type: 'fixed_count' } },
              },
            },
          }),
          metadata: { amparo_reference: charge.reference },
        },
        this.key(charge.idempotencyKey),
      )
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw unavailable(error)
      return { ...saved, result: { approved: false, ...decline } }
    }
    const result = await this.outcome(intent, charge.idempotencyKey, started)
    return { ...saved, token: paymentMethodId(intent.payment_method), result }
  }

  async chargeSaved(
    saved: { customerId: string; token: string },
    amountCents: number,
    idempotencyKey: string,
  ): Promise<ChargeResult> {
    const started = Date.now()
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: amountCents,
          currency: 'brl',
          customer: saved.customerId,
          payment_method: saved.token,
          off_session: true,
          confirm: true,
        },
        this.key(idempotencyKey),
      )
      return await this.outcome(intent, idempotencyKey, started)
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw unavailable(error)
      return { approved: false, ...decline }
    }
  }

  async verifyCard(card: CardData, customerId: string, idempotencyKey: string): Promise<CardVerification> {
    let intent: Stripe.SetupIntent
    try {
      intent = await this.stripe.setupIntents.create(
        {
          customer: customerId,
          confirm: true,
          usage: 'off_session',
          payment_method_data: cardMethod(card) as Stripe.SetupIntentCreateParams.PaymentMethodData,
        },
        this.key(idempotencyKey),
      )
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw unavailable(error)
      return { approved: false, declineCode: decline.declineCode }
    }
    // A SetupIntent waiting for 3-D Secure holds no money: it is left to expire (no call to cancel it).
    if (intent.status === 'requires_action')
      return { approved: false, declineCode: 'authentication_required' }
    if (intent.status !== 'succeeded') return { approved: false, declineCode: 'card_declined' }
    return {
      approved: true,
      token: paymentMethodId(intent.payment_method),
      brand: cardBrand(card.number),
      last4: card.number.slice(-4),
    }
  }

  /**
   * `POST /v1/refunds` of the PaymentIntent. Stripe answers `succeeded`, or `pending` for a refund
   * it accepted and settles later (which it never reverses for cards on its own): both are paid as
   * far as Amparo can act. `failed`/`canceled`, or an error, throw: the worker tries again.
   */
  async refund(paymentReference: string, amountCents: number, idempotencyKey: string): Promise<string> {
    let refund: Stripe.Refund
    try {
      refund = await this.stripe.refunds.create(
        { payment_intent: paymentReference, amount: amountCents },
        this.key(idempotencyKey),
      )
    } catch (error) {
      throw unavailable(error)
    }
    if (refund.status === 'succeeded' || refund.status === 'pending') return refund.id
    throw new GatewayRefusedError(`Stripe left the refund ${refund.id} ${refund.status}`)
  }

  /**
   * A confirmed PaymentIntent's outcome. One left waiting for 3-D Secure, which a partner's API call
   * cannot complete, is canceled (in what remains of the call's 30 s, without retry: it holds no
   * money, so a failed cancel only leaves it to expire) and counts as declined.
   */
  private async outcome(intent: Stripe.PaymentIntent, idempotencyKey: string, started: number) {
    if (intent.status === 'succeeded') return { approved: true as const, transactionId: intent.id }
    if (intent.status === 'requires_action') {
      const timeout = Math.max(1_000, CALL_BUDGET_MS - (Date.now() - started))
      await this.stripe.paymentIntents
        .cancel(intent.id, {}, { ...this.key(`${idempotencyKey}-cancel`), timeout, maxNetworkRetries: 0 })
        .catch(() => {})
      return { approved: false as const, declineCode: 'authentication_required', transactionId: intent.id }
    }
    if (intent.status === 'requires_payment_method') {
      const code =
        intent.last_payment_error?.decline_code || intent.last_payment_error?.code || 'card_declined'
      return { approved: false as const, declineCode: code, transactionId: intent.id }
    }
    // processing, requires_capture…: not an answer a card charge should give; try again later.
    throw new GatewayUnavailableError()
  }
}

function paymentMethodId(method: string | Stripe.PaymentMethod | null): string {
  if (method === null) throw new GatewayRefusedError('Stripe answered without a payment method')
  return typeof method === 'string' ? method : method.id
}

/** The card as Stripe's `payment_method_data` (its published types have no raw card fields: cast where used). */
function cardMethod(card: CardData) {
  return {
    type: 'card',
    card: { number: card.number, exp_month: card.expiryMonth, exp_year: card.expiryYear, cvc: card.cvv },
  }
}
