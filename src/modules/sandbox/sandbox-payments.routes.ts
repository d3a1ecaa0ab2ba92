import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { Id } from '../../http/http-schemas.js'
import { commit } from '../../plugins/unit-of-work.js'
import { formatTimestamp } from '../../shared/time.js'
import { renderingContext } from '../events/event.service.js'
import { paySandboxCode } from '../gateway-events/gateway-event.service.js'

const SandboxPayment = Type.Object(
  {
    id: Type.Integer(),
    method: Type.Enum(['pix', 'boleto']),
    status: Type.Literal('paid'),
    paid_at: Type.String({
      description: '`YYYY-MM-DD HH:MM:SS`, service time zone (the partner’s sandbox clock).',
    }),
  },
  { examples: [{ id: 81, method: 'pix', status: 'paid', paid_at: '2026-11-21 10:25:00' }] },
)

/**
 * Pays a PIX code or boleto of the sandbox gateway as a customer would; registered only in
 * `AMPARO_ENV=test`, like the sandbox clock.
 */
export const sandboxPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const rendering = renderingContext(config)

  app.post(
    '/sandbox/payments/:id/pay',
    {
      schema: {
        tags: ['Sandbox'],
        operationId: 'paySandboxPayment',
        summary: 'Pay a PIX code or boleto in the sandbox',
        description: `Test environment only, with the sandbox gateway. Pays the partner's PIX code or boleto (its \`id\`
from \`POST …/pix\` or \`…/boleto\`) as the customer's bank would, at the partner's sandbox clock: the
installment or plan becomes \`paid\` with \`paid_with\` \`pix\` or \`boleto\`, and its \`*.paid\` event goes out —
what Stripe's \`payment_intent.succeeded\` does with the Stripe gateway. Paying it again answers the same
200. An expired or ended code → 422 \`errors.status\`; another partner's or an unknown one → 404; a code
of the Stripe gateway → 422 \`errors.gateway\` (Stripe's test mode pays those).`,
        params: Type.Object({ id: Id('The payment’s id.', 81) }),
        response: {
          200: SandboxPayment,
          ...errorResponses(401, 404, 422, 'invalid_state', 'wrong_gateway'),
        },
      },
    },
    async (request, reply) =>
      commit(reply, async (trx) => {
        const code = await paySandboxCode(trx, request.partner.partnerId, request.params.id, {
          now: request.clock.now().toISOString(),
          sandboxGateway: config.paymentGateway === 'sandbox',
          rendering,
          log: request.log,
        })
        return {
          id: code.id,
          method: code.method,
          status: 'paid' as const,
          paid_at: formatTimestamp(code.paid_at ?? request.clock.now(), config.timeZone),
        }
      }),
  )
}
