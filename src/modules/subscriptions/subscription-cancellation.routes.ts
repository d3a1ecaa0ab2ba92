import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponse, errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { nowIso } from '../../shared/time.js'
import { renderingContext } from '../events/event.service.js'
import { Subscription, SubscriptionParams } from './subscription.schemas.js'
import { showSubscription } from './subscription.service.js'
import { cancelByPartner } from './subscription-cancellation.service.js'

const CancellationBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({ maxLength: 255, description: 'Why it is canceled, at most 255 characters; kept.' }),
    ),
  },
  { examples: [{ reason: 'Cliente desistiu da proteção.' }] },
)

export const subscriptionCancellationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const events = renderingContext(config)

  app.post(
    '/subscriptions/:subscriptionId/cancellation',
    {
      schema: {
        tags: ['Subscriptions'],
        operationId: 'cancelSubscription',
        summary: 'Cancel a subscription',
        description: `Extension. Cancels the subscription at once: \`status\` becomes \`canceled\` and its unpaid
(\`pending\` or \`refused\`) installments \`canceled\`; paid installments stay paid. The optional
\`reason\` (at most 255 characters) is kept with the time of cancellation. The body may be omitted.
Answers the subscription. Already canceled → 422 \`errors.status\`; while a card payment of it is
being charged, or one the gateway answered is still being recorded (the worker records it within a
minute) → 409 \`payment_in_progress\` with \`Retry-After\`, nothing canceled. Its serial numbers are
then free to be protected again.`,
        params: SubscriptionParams,
        body: CancellationBody,
        response: {
          200: Subscription,
          ...errorResponses(400, 401, 404, 413, 415, 422, 'invalid_state'),
          409: errorResponse(
            409,
            'A card payment of this subscription is being charged: try again once it has answered.',
            ['payment_in_progress'],
          ),
        },
      },
    },
    async (request, reply) => {
      const { subscriptionId } = request.params
      const { partnerId } = request.partner
      const now = nowIso(request.clock)
      // Fastify validates only a body that was sent: without one, `request.body` is undefined.
      const reason = request.body?.reason
      return commit(reply, async (trx) => {
        await cancelByPartner(trx, partnerId, subscriptionId, reason, now, events)
        return showSubscription(trx, partnerId, subscriptionId, baseUrl(request), config.timeZone)
      })
    },
  )
}
