import { GatewayModeError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'

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

/** Card details made a payment method, or refused by the gateway as they are (a decline). */
export type SavedCardResult = ({ approved: true } & SavedCard) | { approved: false; declineCode: string }

export type CardVerification = { approved: true } | { approved: false; declineCode: string }

/** What every object the gateway creates carries in its metadata: whose it is, what it settles. */
export interface GatewayLabel {
  partnerId: number
  /** The subscription, installment, annual plan or refund (`metadata[amparo_reference]`). */
  reference: string
}

/** A first charge, by the payment method `saveCard` made of the partner's card. */
export interface FirstCharge extends GatewayLabel {
  amountCents: number
  /** The gateway's customer (`createCustomer`). */
  customerId: string
  paymentMethod: string
  /** Kept for off-session charges later (subscriptions), or charged once (annual plans). */
  saveForLater: boolean
  /** An annual plan paid in 2–12 monthly installments by the card issuer; 1: at once. */
  installments: number
  idempotencyKey: string
}

/** A PIX code or boleto to make: the amount, what it settles, its operation key. */
export interface CodeCharge extends GatewayLabel {
  amountCents: number
  idempotencyKey: string
}

/** Who pays a boleto: Brazilian banks print the payer's name, document and address on it. */
export interface BoletoPayer {
  name: string
  email: string
  /** CPF or CNPJ, bare. */
  document: string
  address: { line1: string; city: string; state: string; postalCode: string }
}

/** A PIX code or boleto the gateway made: its PaymentIntent, and what the customer pays with. */
export interface PendingCode {
  /** The gateway's PaymentIntent (`pi_…`). */
  reference: string
  /** PIX: the copia-e-cola text; boleto: its number. */
  code: string
  /** Boleto: the gateway's PDF; null for PIX. */
  documentUrl: string | null
}

/**
 * The own payment gateway (README, "Going live: card payments through Stripe"). What an adapter
 * must guarantee: each call settles or fails within 30 s, and `idempotencyKey` (an operation's,
 * made unique to this deployment by the adapter) is sent as the gateway's, so a repeat of a call
 * whose answer was lost is answered from the first one, never made twice. A decline is an answer (`approved: false`); a
 * gateway that could not answer throws GatewayUnavailableError, one that refused the request as
 * malformed GatewayRefusedError.
 */
export interface PaymentGateway {
  /** The gateway's customer for an Amparo customer, created once (its id is kept by the caller). */
  createCustomer(amparoCustomerId: number, idempotencyKey: string, label: GatewayLabel): Promise<string>
  /** Card details made a payment method of the gateway; never attached to anyone yet. */
  saveCard(card: CardData, idempotencyKey: string, label: GatewayLabel): Promise<SavedCardResult>
  chargeCard(charge: FirstCharge): Promise<ChargeResult>
  /** An off-session charge of a saved card (the recurrence, a card update). */
  chargeSaved(
    saved: { customerId: string; token: string },
    amountCents: number,
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<ChargeResult>
  /** Checks a saved card and keeps it on the customer for off-session charges, charging nothing. */
  verifyCard(
    saved: { customerId: string; token: string },
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<CardVerification>
  /** Detaches a replaced card from its customer: it can no longer be charged. */
  detachCard(token: string, idempotencyKey: string): Promise<void>
  /**
   * Gives back `amountCents` of the charge `paymentReference` (a `transactionId` it approved) and
   * answers the gateway's refund id. Anything but a refund the gateway took throws.
   */
  refund(
    paymentReference: string,
    amountCents: number,
    idempotencyKey: string,
    label: GatewayLabel,
  ): Promise<string>
  /** A PIX code valid for `expiresAfterSeconds`: paid when the gateway says its PaymentIntent succeeded. */
  createPix(charge: CodeCharge, expiresAfterSeconds: number): Promise<PendingCode>
  /** A boleto valid for `expiresAfterDays` (calendar days): paid when the gateway says so. */
  createBoleto(charge: CodeCharge, payer: BoletoPayer, expiresAfterDays: number): Promise<PendingCode>
}

/**
 * The gateway a card payment of this partner goes to, for subscriptions and annual plans alike:
 * 422 `errors.gateway` for a partner that collects payments itself and may only notify them
 * (README, "Operator commands", `partner gateway`), and for an environment without a card gateway.
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
