import type { Config } from '../../config.js'
import { GatewayModeError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { SandboxGateway } from './sandbox-gateway.js'

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

export interface CardCharge {
  /** What the recurrence charges later instead of the card. */
  token: string
  brand: string
  last4: string
  result: ChargeResult
}

/**
 * The own payment gateway: charge a card once (getting a token back), or charge a token later.
 * What an adapter for a real gateway must guarantee, because a charge holds its installment or plan
 * only for the claim length (`AMPARO_PAYMENT_CLAIM_SECONDS`) and a retry after that charges again:
 * each call settles or fails within 30 s (abort it, never leave it running), and `reference` is
 * sent as the gateway's idempotency key, so a repeat of a charge whose answer was lost is not a
 * second charge. The sandbox answers at once.
 */
export interface PaymentGateway {
  chargeCard(card: CardData, amountCents: number, reference: string): Promise<CardCharge>
  chargeToken(token: string, amountCents: number, reference: string): Promise<ChargeResult>
}

/** The gateway the configuration names; null when card payments are off. */
export function createGateway(config: Pick<Config, 'paymentGateway'>): PaymentGateway | null {
  return config.paymentGateway === 'sandbox' ? new SandboxGateway() : null
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
