import { GatewayModeError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/principal.repository.js'
import type { PaymentGateway } from './payment-gateway.js'

/**
 * The gateway a card payment of this partner goes to, for subscriptions and annual plans alike:
 * 422 `errors.gateway` for a partner that collects payments itself and may only notify them
 * (CONTRACT §3), and for an environment without a card gateway. The card routes run it before
 * their body's validation too, so that a call of the wrong mode hears that and nothing else.
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
