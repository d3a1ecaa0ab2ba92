import type { Config } from '../../config.js'
import { GatewayModeError, ServiceUnavailableError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { SandboxGateway } from './sandbox-gateway.js'
import { STRIPE_DEFAULTS, StripeGateway, type StripeGatewayOptions } from './stripe-gateway.js'

/** A card as the partner sent it; lives only for the duration of one charge, never stored or logged. */
export interface CardData {
  number: string
  expiryMonth: number
  /** Four digits. */
  expiryYear: number
  cvv: string
  holder?: string
}

export type ChargeResult =
  | { approved: true; transactionId: string }
  | { approved: false; declineCode: string; transactionId: string | null }

/** A card kept by the gateway for later charges: its payment-method id (`token`), brand, last four digits. */
export interface SavedCard {
  token: string
  brand: string
  last4: string
}

export interface CardCharge extends SavedCard {
  result: ChargeResult
}

export type CardVerification = ({ approved: true } & SavedCard) | { approved: false; declineCode: string }

/** A first charge of a card the partner sent. */
export interface FirstCharge {
  amountCents: number
  /** The gateway's customer (`createCustomer`). */
  customerId: string
  /** Kept for off-session charges later (subscriptions), or charged once (annual plans). */
  saveForLater: boolean
  /** An annual plan paid in 2–12 monthly installments by the card issuer; 1 or absent: at once. */
  installments?: number
  /** What the charge settles, shown in the gateway's dashboard (`metadata[amparo_reference]`). */
  reference: string
  idempotencyKey: string
}

/**
 * The own payment gateway (CONTRACT §16). What an adapter must guarantee, because a charge holds
 * its installment or plan only for the claim length (`AMPARO_PAYMENT_CLAIM_SECONDS`) and a retry
 * after that charges again: each call settles or fails within 30 s, and `idempotencyKey` is sent as
 * the gateway's, so a repeat of a call whose answer was lost is not a second charge. A decline is an
 * answer (`approved: false`); a gateway that could not answer throws GatewayUnavailableError.
 */
export interface PaymentGateway {
  /** The gateway's customer for an Amparo customer, created once (its id is kept by the caller). */
  createCustomer(amparoCustomerId: number, idempotencyKey: string): Promise<string>
  chargeCard(card: CardData, charge: FirstCharge): Promise<CardCharge>
  /** An off-session charge of a saved card (the recurrence, a card update). */
  chargeSaved(
    saved: { customerId: string; token: string },
    amountCents: number,
    idempotencyKey: string,
  ): Promise<ChargeResult>
  /** Checks a card and saves it for off-session charges, charging nothing. */
  verifyCard(card: CardData, customerId: string, idempotencyKey: string): Promise<CardVerification>
  /**
   * Gives back `amountCents` of the charge `paymentReference` (a `transactionId` it approved) and
   * answers the gateway's refund id. Anything but a refund the gateway took throws.
   */
  refund(paymentReference: string, amountCents: number, idempotencyKey: string): Promise<string>
}

/**
 * The gateway could not answer (timeout, connection lost, its own fault, a revoked key, its rate
 * limit): not a decline. Whether it charged is unknown, so the item stays claimed and the next try,
 * after `Retry-After`, sends the same idempotency key.
 */
export class GatewayUnavailableError extends ServiceUnavailableError {
  override readonly retryAfterSeconds: number

  /** `gateway`: what the log needs to find the call at the gateway (Stripe's request id…). */
  constructor(
    retryAfterSeconds = 5,
    readonly gateway: Record<string, unknown> = {},
  ) {
    super('The payment gateway did not answer; nothing was recorded. Retry after Retry-After seconds.')
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/**
 * The gateway answered but refused the request as malformed (a bug, or an idempotency key reused
 * with other parameters), or left it in a state the call does not expect: not a decline.
 */
export class GatewayRefusedError extends Error {
  override name = 'GatewayRefusedError'
}

/** The gateway the configuration names; null when card payments are off. `options`: tests' timeouts. */
export function createGateway(
  config: Pick<Config, 'paymentGateway' | 'stripe'>,
  options: Partial<StripeGatewayOptions> = {},
): PaymentGateway | null {
  if (config.paymentGateway === 'sandbox') return new SandboxGateway()
  if (config.paymentGateway === 'stripe' && config.stripe) {
    return new StripeGateway({ ...STRIPE_DEFAULTS, ...config.stripe, ...options })
  }
  return null
}

/**
 * The gateway a card payment of this partner goes to, for subscriptions and annual plans alike:
 * 422 `errors.gateway` for a partner that collects payments itself and may only notify them
 * (CONTRACT §3), and for an environment without a card gateway.
 */
export function cardGateway(
  partner: Pick<PartnerContext, 'gateway'>,
  gateway: PaymentGateway | null,
): PaymentGateway {
  if (partner.gateway !== 'own') {
    throw new GatewayModeError(
      'This partner uses the external gateway: notify payments through the notify-payment call.',
    )
  }
  if (!gateway) throw new GatewayModeError('Card payments are not available in this environment.')
  return gateway
}

/**
 * A card route's early check, before its body is validated: a partner of the wrong mode (or an
 * environment without card payments) hears that and nothing else, once `exists` has confirmed the
 * item is the partner's (a 404 comes first, as on every payment call).
 */
export async function refuseWrongGateway(
  partner: Pick<PartnerContext, 'gateway'>,
  gateway: PaymentGateway | null,
  exists: () => Promise<unknown>,
): Promise<void> {
  try {
    cardGateway(partner, gateway)
  } catch (refusal) {
    await exists()
    throw refusal
  }
}
