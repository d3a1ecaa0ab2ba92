import type { Clock } from '../../shared/time.js'
import type { RenderingContext } from '../events/event.service.js'
import type { PaymentGateway } from '../payments/payment-gateway.js'

// What applying a Stripe event reads and answers (gateway-event.service.ts applies them).

/** The part of a Stripe event the service reads. */
export interface StripeEventInput {
  id: string
  type: string
  data: { object: object }
}

export interface GatewayEventContext {
  /** The own gateway: a lost card answer is asked again through it. */
  gateway: PaymentGateway | null
  /** Real time; each partner's sandbox clock is read from it in `test`. */
  clock: Clock
  sandboxClocks: boolean
  rendering: RenderingContext
  log: { error(details: object, message: string): void; info(details: object, message: string): void }
}

export type EventAnswer = 'applied' | 'duplicate' | 'ignored'
