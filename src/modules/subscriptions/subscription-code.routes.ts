import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { CODE_RULES, PixCode } from '../payments/payment-code.schemas.js'
import { pixResource } from '../payments/payment-code.service.js'
import { requestInstallmentPix } from './subscription-code.service.js'
import { InstallmentParams } from './subscription-payment.schemas.js'

export const subscriptionCodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app

  app.post(
    '/subscriptions/:subscriptionId/installments/:installmentId/pix',
    {
      schema: {
        tags: ['Subscriptions'],
        operationId: 'requestInstallmentPix',
        summary: 'A PIX code to pay an installment (own gateway)',
        description: `For own-gateway partners: a PIX code (copia e cola, and its QR code as a PNG) the customer pays
from any bank app, valid for an hour. No body. Another partner's or an unknown installment → 404; an
external-gateway partner → 422 \`errors.gateway\`; an installment paid or canceled, a later one while
installment 1 is unpaid, or installment 1 of a subscription past its unpaid days → 422 \`errors.status\`.
Paying installment 1 activates the subscription, as a card payment does.

${CODE_RULES}`,
        params: InstallmentParams,
        response: {
          200: PixCode,
          201: PixCode,
          ...errorResponses(401, 404, 422, 'invalid_state', 'wrong_gateway', 'gateway_error'),
        },
      },
    },
    async (request, reply) => {
      const { subscriptionId, installmentId } = request.params
      const { code, created } = await requestInstallmentPix(
        db,
        request.partner,
        subscriptionId,
        installmentId,
        {
          gateway: app.gateway,
          clock: request.clock,
          timeZone: config.timeZone,
          log: request.log,
        },
      )
      const view = {
        base: baseUrl(request),
        timeZone: config.timeZone,
        now: request.clock.now().toISOString(),
      }
      return reply.code(created ? 201 : 200).send(pixResource(code, view))
    },
  )
}
