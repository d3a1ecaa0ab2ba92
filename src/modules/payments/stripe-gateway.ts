import Stripe from 'stripe'
import { cardBrand } from './card.js'
import { GatewayRefusedError, GatewayUnavailableError, PaymentInProgressError } from './payment.errors.js'
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

/** The Stripe API version the adapter is written against, pinned so an account upgrade changes nothing. */
export const STRIPE_API_VERSION = '2026-10-28.endive'

/** Every gateway call settles within this (README, "Going live: card payments through Stripe"). */
const CALL_BUDGET_MS = 29_000

/** Card payments only: no other method a PaymentIntent or SetupIntent could fall back to. */
const CARD_ONLY = ['card' as const]

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
  /**
   * Starts every idempotency key: this deployment's (`loadKeyNamespace`), so one Stripe account
   * serving several databases never gets one key for two operations.
   */
  keyNamespace: string
}

export const STRIPE_DEFAULTS = { timeoutMs: 12_000, maxNetworkRetries: 1 }

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
 * Anything but a decline. Stripe could not answer (timeout, connection, 5xx, its rate limit) →
 * GatewayUnavailableError (503, the retry resends the key); a call with this key still running at
 * Stripe, or the key's first call made with other parameters → 409; anything else Stripe refused
 * (a malformed request, a revoked key) → GatewayRefusedError (502). Stripe's request id goes with
 * it for the log; never the card: Stripe's messages do not repeat it, and only these fields are kept.
 */
function failureOf(error: unknown): Error {
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
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error.statusCode ?? 0) >= 500
  if (transient) return new GatewayUnavailableError(details)
  if (error instanceof Stripe.errors.StripeIdempotencyError) {
    return new PaymentInProgressError(
      'An earlier attempt of this payment is still being answered by the gateway: retry it shortly.',
    )
  }
  return new GatewayRefusedError(
    `Stripe refused the request (${error.type}, ${error.code ?? 'no code'})`,
    details,
  )
}

/** A PIX or boleto PaymentIntent Stripe answered without the code to show: nothing to give the customer. */
const pendingCodeMissing = (intent: Stripe.PaymentIntent) =>
  new GatewayRefusedError(`Stripe answered the PaymentIntent ${intent.id} ${intent.status} without a code`, {
    stripe_payment_intent: intent.id,
  })

const metadataOf = ({ partnerId, reference }: GatewayLabel) => ({
  amparo_partner_id: String(partnerId),
  amparo_reference: reference,
})

/**
 * The own gateway on Stripe, through its official library: exactly the calls the README's "Going
 * live: card payments through Stripe" lists, each with an idempotency key derived from what it settles.
 */
export class StripeGateway implements PaymentGateway {
  private readonly stripe: Stripe
  private readonly keyNamespace: string

  constructor({ secretKey, apiUrl, timeoutMs, maxNetworkRetries, keyNamespace }: StripeGatewayOptions) {
    const url = apiUrl ? new URL(apiUrl) : null
    if (!keyNamespace) throw new Error('StripeGateway needs the deployment key namespace')
    this.keyNamespace = keyNamespace
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
    return { idempotencyKey: `${this.keyNamespace}-${key}` }
  }

  async createCustomer(
    amparoCustomerId: number,
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<string> {
    try {
      const customer = await this.stripe.customers.create(
        { metadata: { ...metadataOf(label), amparo_customer_id: String(amparoCustomerId) } },
        this.key(idempotencyKey),
      )
      return customer.id
    } catch (error) {
      throw failureOf(error)
    }
  }

  /** `POST /v1/payment_methods` from the card details (Stripe's raw card data route). */
  async saveCard(card: CardData, idempotencyKey: string, label: GatewayLabel): Promise<SavedCardResult> {
    try {
      const method = await this.stripe.paymentMethods.create(
        {
          type: 'card',
          card: {
            number: card.number,
            exp_month: card.expiryMonth,
            exp_year: card.expiryYear,
            cvc: card.cvv,
          },
          ...(card.holder && { billing_details: { name: card.holder } }),
          metadata: metadataOf(label),
        },
        this.key(idempotencyKey),
      )
      return {
        approved: true,
        token: method.id,
        brand: method.card?.brand ?? cardBrand(card.number),
        last4: method.card?.last4 ?? card.number.slice(-4),
      }
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw failureOf(error)
      return { approved: false, declineCode: decline.declineCode }
    }
  }

  async chargeCard(charge: FirstCharge): Promise<ChargeResult> {
    const started = Date.now()
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: charge.amountCents,
          currency: 'brl',
          customer: charge.customerId,
          payment_method: charge.paymentMethod,
          allowed_payment_method_types: CARD_ONLY,
          confirm: true,
          error_on_requires_action: true,
          ...(charge.saveForLater && { setup_future_usage: 'off_session' as const }),
          ...(charge.installments > 1 && {
            payment_method_options: {
              card: {
                installments: {
                  plan: {
                    count: charge.installments,
                    interval: 'month' as const,
                    type: 'fixed_count' as const,
                  },
                },
              },
            },
          }),
          metadata: metadataOf(charge),
        },
        this.key(charge.idempotencyKey),
      )
      return await this.outcome(intent, charge.idempotencyKey, started)
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw failureOf(error)
      return { approved: false, ...decline }
    }
  }

  async chargeSaved(
    saved: { customerId: string; token: string },
    amountCents: number,
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<ChargeResult> {
    const started = Date.now()
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: amountCents,
          currency: 'brl',
          customer: saved.customerId,
          payment_method: saved.token,
          allowed_payment_method_types: CARD_ONLY,
          off_session: true,
          confirm: true,
          metadata: metadataOf(label),
        },
        this.key(idempotencyKey),
      )
      return await this.outcome(intent, idempotencyKey, started)
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw failureOf(error)
      return { approved: false, ...decline }
    }
  }

  async verifyCard(
    saved: { customerId: string; token: string },
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<CardVerification> {
    let intent: Stripe.SetupIntent
    try {
      intent = await this.stripe.setupIntents.create(
        {
          customer: saved.customerId,
          payment_method: saved.token,
          allowed_payment_method_types: CARD_ONLY,
          confirm: true,
          usage: 'off_session',
          metadata: metadataOf(label),
        },
        this.key(idempotencyKey),
      )
    } catch (error) {
      const decline = declineOf(error)
      if (!decline) throw failureOf(error)
      return { approved: false, declineCode: decline.declineCode }
    }
    // A SetupIntent waiting for 3-D Secure holds no money: it is left to expire (no call to cancel it).
    if (intent.status === 'requires_action')
      return { approved: false, declineCode: 'authentication_required' }
    if (intent.status !== 'succeeded') return { approved: false, declineCode: 'card_declined' }
    return { approved: true }
  }

  async detachCard(token: string, idempotencyKey: string): Promise<void> {
    try {
      await this.stripe.paymentMethods.detach(token, {}, this.key(idempotencyKey))
    } catch (error) {
      throw failureOf(error)
    }
  }

  /**
   * `POST /v1/refunds` of the PaymentIntent. Stripe answers `succeeded`, or `pending` for a refund
   * it accepted and settles later (which it never reverses for cards on its own): both are paid as
   * far as Amparo can act. `failed`/`canceled`, or an error, throw: the worker tries again.
   */
  async refund(
    paymentReference: string,
    amountCents: number,
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<string> {
    let refund: Stripe.Refund
    try {
      refund = await this.stripe.refunds.create(
        {
          payment_intent: paymentReference,
          amount: amountCents,
          reason: 'requested_by_customer',
          metadata: metadataOf(label),
        },
        this.key(idempotencyKey),
      )
    } catch (error) {
      throw failureOf(error)
    }
    if (refund.status === 'succeeded' || refund.status === 'pending') return refund.id
    throw new GatewayRefusedError(`Stripe left the refund ${refund.id} ${refund.status}`)
  }

  /**
   * `POST /v1/payment_intents` for PIX, confirmed at once: Stripe answers `requires_action` with the
   * code in `next_action.pix_display_qr_code` (its `data` is the copia-e-cola text).
   */
  async createPix(charge: CodeCharge, expiresAfterSeconds: number): Promise<PendingCode> {
    const intent = await this.codeIntent(charge, {
      allowed_payment_method_types: ['pix'],
      payment_method_data: { type: 'pix' },
      payment_method_options: { pix: { expires_after_seconds: expiresAfterSeconds } },
    })
    const pix = intent.next_action?.pix_display_qr_code
    if (!pix?.data) throw pendingCodeMissing(intent)
    return { reference: intent.id, code: pix.data, documentUrl: null }
  }

  /**
   * `POST /v1/payment_intents` for a boleto, confirmed at once with the payer's name, e-mail, address
   * and CPF/CNPJ (`tax_id`): the number and PDF in `next_action.boleto_display_details`.
   */
  async createBoleto(charge: CodeCharge, payer: BoletoPayer, expiresAfterDays: number): Promise<PendingCode> {
    const intent = await this.codeIntent(charge, {
      allowed_payment_method_types: ['boleto'],
      payment_method_data: {
        type: 'boleto',
        boleto: { tax_id: payer.document },
        billing_details: {
          name: payer.name,
          email: payer.email,
          address: {
            line1: payer.address.line1,
            city: payer.address.city,
            state: payer.address.state,
            postal_code: payer.address.postalCode,
            country: 'BR',
          },
        },
      },
      payment_method_options: { boleto: { expires_after_days: expiresAfterDays } },
    })
    const boleto = intent.next_action?.boleto_display_details
    if (!boleto?.number) throw pendingCodeMissing(intent)
    return { reference: intent.id, code: boleto.number, documentUrl: boleto.pdf }
  }

  private async codeIntent(
    charge: CodeCharge,
    method: Pick<
      Stripe.PaymentIntentCreateParams,
      'allowed_payment_method_types' | 'payment_method_data' | 'payment_method_options'
    >,
  ): Promise<Stripe.PaymentIntent> {
    try {
      return await this.stripe.paymentIntents.create(
        {
          amount: charge.amountCents,
          currency: 'brl',
          confirm: true,
          ...method,
          metadata: metadataOf(charge),
        },
        this.key(charge.idempotencyKey),
      )
    } catch (error) {
      throw failureOf(error)
    }
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
    throw new GatewayUnavailableError({ stripe_payment_intent: intent.id, stripe_status: intent.status })
  }
}
