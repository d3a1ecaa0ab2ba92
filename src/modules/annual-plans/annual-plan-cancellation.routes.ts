import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { Id, Money, nullable, Timestamp } from '../../http/http-schemas.js'
import { baseUrl } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { renderingContext } from '../events/event.service.js'
import { cancellationRequestResource } from './annual-plan.mapper.js'
import { AnnualPlan, AnnualPlanParams } from './annual-plan.schemas.js'
import { showAnnualPlan } from './annual-plan.service.js'
import { confirmCancellation, requestCancellation } from './annual-plan-cancellation.service.js'

const tags = ['Annual plans']

const CancellationBody = Type.Object(
  {
    reason: Type.Optional(
      nullable(
        Type.String({ maxLength: 255 }),
        'Why the customer cancels, at most 255 characters; kept with the request.',
      ),
    ),
  },
  { examples: [{ reason: 'Cliente desistiu da proteção.' }] },
)

const CancellationRequest = Type.Object(
  {
    protocol: Type.String({
      description:
        '`CAN-` and 10 characters (A–Z, 2–7). Confirm with `POST /annual-plans/{id}/cancellation/{protocol}`.',
    }),
    status: Type.Literal('requested'),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: 'The reason of the first request, or null.',
    }),
    refund_amount: Money('The refund if the cancellation were confirmed now; fixed at confirmation.'),
    requested_at: Timestamp('When it was first requested.'),
  },
  {
    examples: [
      {
        protocol: 'CAN-K7Q2M4XJ3D',
        status: 'requested',
        reason: 'Cliente desistiu da proteção.',
        refund_amount: 989.89,
        requested_at: '2026-11-23 14:00:00',
      },
    ],
  },
)

const CancellationParams = Type.Object({
  id: Id('Annual plan id.', 1),
  protocol: Type.String({
    maxLength: 50,
    description: 'The protocol `PUT /annual-plans/{id}/cancellation` returned.',
  }),
})

const REFUND_RULE = `**Refund** (computed when the cancellation is confirmed, in cents, rounded
half-up): a plan never paid → 0; confirmed within 7 calendar days of the payment date (the payment
day is day 0; the consumer's right of regret) → the full premium; later → pro rata temporis,
premium × days of cover left ÷ days of the term (365, or 366 when the term spans 29 February),
counted from the confirmation day, which is refunded (cover ends at the confirmation): confirmed
on the last covered day → one day's share; 0 once the cover has ended. Days are calendar dates in
the service time zone. \`refund_due_date\` is the confirmation date + 15 calendar days.`

export const annualPlanCancellationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const timeZone = config.timeZone
  const rendering = renderingContext(config)

  app.put(
    '/annual-plans/:id/cancellation',
    {
      schema: {
        tags,
        operationId: 'requestAnnualPlanCancellation',
        summary: 'Request the cancellation of an annual plan',
        description: `First step of the cancellation: opens a request and answers its \`protocol\`,
which \`POST /annual-plans/{id}/cancellation/{protocol}\` confirms. The plan's \`status\` does not
change (its \`cancellation\` field shows the request); \`refund_amount\` is what a confirmation now
would refund. Repeating the PUT answers the same open request (same protocol, first reason kept),
even after the cover has ended. Opening a request on a plan that is canceled or expired answers 422
\`errors.status\`; an unpaid plan may be canceled.
The body (\`{"reason"}\`) may be omitted.

${REFUND_RULE}`,
        params: AnnualPlanParams,
        body: CancellationBody,
        response: {
          200: CancellationRequest,
          ...errorResponses(400, 401, 404, 413, 415, 422, 'invalid_state'),
        },
      },
    },
    async (request, reply) => {
      const now = request.clock.now().toISOString()
      const reason = request.body.reason || null
      return commit(reply, async (trx) => {
        const { partnerId } = request.partner
        const { plan, cancellation } = await requestCancellation(
          trx,
          partnerId,
          request.params.id,
          reason,
          now,
          rendering,
        )
        return cancellationRequestResource(plan, cancellation, now, timeZone)
      })
    },
  )

  app.post(
    '/annual-plans/:id/cancellation/:protocol',
    {
      schema: {
        tags,
        operationId: 'confirmAnnualPlanCancellation',
        summary: 'Confirm the cancellation of an annual plan',
        description: `Second step: confirms the request with its protocol (case-insensitive). The plan
becomes \`canceled\`; \`cancellation\` gets \`status: confirmed\`, \`confirmed_at\`, the final
\`refund_amount\` and \`refund_due_date\`. A protocol that is not this plan's answers 404. Repeating
the confirmation answers the same 200 with the same refund and dates. While a card payment of
the plan is in progress, 409. Once confirmed, the plan's IMEIs are free to be protected again (a
request alone keeps them).

${REFUND_RULE}`,
        params: CancellationParams,
        response: { 200: AnnualPlan, ...errorResponses(401, 404, 'payment_in_progress') },
      },
    },
    async (request, reply) => {
      const now = request.clock.now().toISOString()
      const { id } = request.params
      const { partnerId } = request.partner
      const protocol = request.params.protocol.trim().toUpperCase()
      return commit(reply, async (trx) => {
        await confirmCancellation(trx, partnerId, id, protocol, { now, timeZone }, rendering)
        return showAnnualPlan(trx, partnerId, id, { base: baseUrl(request), timeZone, now })
      })
    },
  )
}
