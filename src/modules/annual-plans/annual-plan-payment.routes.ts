import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { retryingTransaction } from '../../db/transaction.js'
import { errorResponses } from '../../http/http-schemas.js'
import { cardGateway } from '../payments/gateway-mode.js'
import { paymentNoticeResource } from './annual-plan.mapper.js'
import { AnnualPlan, AnnualPlanParams } from './annual-plan.schemas.js'
import { annualPlanOf, annualPlanRowOf } from './annual-plan.view.js'
import { payAnnualPlanByCard } from './annual-plan-card.service.js'
import { assertNotifiable, recordNotifiedPayment } from './annual-plan-notification.service.js'
import { AnnualPlanCardBody, PaymentNotice } from './annual-plan-payment.schemas.js'

const tags = ['Annual plans']

const PAYMENT_EFFECT = `The plan becomes \`paid\` with a \`policy_number\`, \`AMP-<year of payment>-<id
zero-padded to 6 digits>\` (\`AMP-2026-000042\`; the year in the service time zone), unique per plan.
Cover (\`starts_at\`) begins at 00:00 (service time zone) of the day after the payment and ends
(\`ends_at\`) 12 months later; \`status\` reads \`protected\` from \`starts_at\` and \`expired\` from \`ends_at\`.`

export const annualPlanPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app
  const timeZone = config.timeZone

  app.post(
    '/annual-plans/:id/payment',
    {
      schema: {
        tags,
        operationId: 'payAnnualPlanByCard',
        summary: 'Pay an annual plan by card (own gateway)',
        description: `Charges the premium to a card through the service's own gateway, in
\`installments\` (1 to 12, default 1). Only for own-gateway partners.

Another partner's or an unknown plan → 404. An external-gateway partner, or an environment without
card payments → 422 \`errors.gateway\` alone, whatever the body: it is checked right after the plan,
before the body is validated. The plan must be \`awaiting_payment\`; otherwise 422 \`errors.status\`
and nothing is charged. Card rules (422 under \`card_number\`, \`card_expiry\`, \`card_cvv\`): Luhn-valid
number, expiry \`MM/YY\` not before the current month, 3–4 digit code. While a charge of the plan is
in progress, another call answers 409: a plan is never charged twice.

Approved → 200 with the plan. ${PAYMENT_EFFECT} Only the card brand and last four digits are kept.

Declined → 402 \`{"message", "errors": {"creditCard": [...]}, "decline_code"}\` (as for subscriptions); the plan stays
\`awaiting_payment\` and may be paid with another card. Test cards: \`4111111111111111\` approves,
\`4000000000000002\` declines (\`card_declined\`), \`4000000000009995\` (\`insufficient_funds\`),
\`4000000000000069\` (\`expired_card\`).`,
        params: AnnualPlanParams,
        body: AnnualPlanCardBody,
        response: { 200: AnnualPlan, ...errorResponses(400, 401, 402, 404, 409, 413, 415, 422) },
      },
      // The mode before the body, so that a partner that may only notify payments is told so, not
      // what its card lacks; but after the plan, as with a valid body: another partner's plan is
      // 404 whatever the call. The plan is looked up here only for a call that is refused.
      preValidation: async (request) => {
        try {
          cardGateway(request.partner, app.gateway)
        } catch (refusal) {
          // The path is not validated yet; a malformed id is left to validation's 404.
          if (!request.getValidationFunction('params')?.(request.params)) return
          await annualPlanRowOf(db, request, request.params.id)
          throw refusal
        }
      },
    },
    async (request) => {
      const { partner, params, body } = request
      await payAnnualPlanByCard(db, partner, app.gateway, params.id, body, { clock, timeZone }, request.log)
      return annualPlanOf(db, request, params.id)
    },
  )

  app.post(
    '/annual-plans/:id/notify-payment',
    {
      schema: {
        tags,
        operationId: 'notifyAnnualPlanPayment',
        summary: 'Notify the payment of an annual plan (external gateway)',
        description: `The partner collected the premium in its own system and tells the service; no
body. Only for external-gateway partners (own-gateway ones answer 422 \`errors.gateway\`).

200 \`{id, status, policy_number, paid_at, starts_at, ends_at}\`. ${PAYMENT_EFFECT}

Idempotent: a repeat (or a concurrent duplicate) answers the same 200 with the same policy number
and dates, and records the payment only once. A canceled plan answers 422 \`errors.status\`; a
notification that recorded the payment answers 200 even when a cancellation is confirmed the moment
after (the plan then shows \`canceled\` with its refund).`,
        params: AnnualPlanParams,
        response: { 200: PaymentNotice, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const { partner, params } = request
      const now = clock.now().toISOString()
      const plan = await annualPlanRowOf(db, request, params.id)
      assertNotifiable(partner, plan, now)
      if (plan.status === 'awaiting_payment') {
        const recorded = await retryingTransaction(db, (trx) =>
          recordNotifiedPayment(trx, plan, { now, timeZone }),
        )
        // This call paid it: it says so, even if a cancellation was confirmed the moment after (its
        // refund covers this payment). Answering 422 would tell the partner nothing was recorded.
        if (recorded) return paymentNoticeResource(recorded, now, timeZone)
      }
      // Read again: a concurrent notification (or cancellation) may have decided instead of this one.
      const paid = await annualPlanRowOf(db, request, plan.id)
      assertNotifiable(partner, paid, now)
      return paymentNoticeResource(paid, now, timeZone)
    },
  )
}
