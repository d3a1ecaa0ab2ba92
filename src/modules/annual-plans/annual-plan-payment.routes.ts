import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { cardCallContext } from '../../plugins/context.js'
import { commit, refusal, settlement } from '../../plugins/unit-of-work.js'
import { renderingContext } from '../events/event.service.js'
import { CARD_CALL_ERRORS, CARD_CALL_FAILURES, CardDeclinedError } from '../payments/card.js'
import { type ChargeResult, refuseWrongGateway } from '../payments/payment-gateway.js'
import { paymentNoticeResource } from './annual-plan.mapper.js'
import { AnnualPlan, AnnualPlanParams } from './annual-plan.schemas.js'
import { requireAnnualPlanRow, showAnnualPlan } from './annual-plan.service.js'
import { notifyAnnualPlanPayment, payAnnualPlanByCard } from './annual-plan-payment.service.js'

const tags = ['Annual plans']

// Sizes are only bounds against abuse: the card rules (Luhn, month, digits) are checked after the
// schema so that each answers its own message under `card_number`, `card_expiry` or `card_cvv`.
const AnnualPlanCardBody = Type.Object(
  {
    card_number: Type.String({
      maxLength: 32,
      description: 'Card number, 12–19 digits with a valid Luhn check digit; spaces and hyphens ignored.',
    }),
    card_holder: Type.Optional(Type.String({ maxLength: 100, description: 'Name printed on the card.' })),
    card_expiry: Type.String({
      maxLength: 5,
      description: 'Expiry month and year, `MM/YY` (`MMYY` also accepted); not before the current month.',
    }),
    card_cvv: Type.String({ maxLength: 4, description: 'Security code, 3 or 4 digits.' }),
    installments: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        default: 1,
        description: 'Card installments, 1 to 12. Default 1.',
      }),
    ),
  },
  {
    examples: [
      {
        card_number: '4111111111111111',
        card_holder: 'MARIA DA SILVA',
        card_expiry: '12/30',
        card_cvv: '123',
        installments: 10,
      },
    ],
  },
)

const PaymentNotice = Type.Object(
  {
    id: Type.Integer(),
    status: Type.Enum(['paid', 'protected', 'expired'], {
      description:
        '`paid` at notification (cover starts at 00:00 of the next day); a later repeat shows the clock’s status.',
    }),
    policy_number: Type.String({
      description: '`AMP-<year of payment>-<id, 6 digits>`; the same on every repeat.',
    }),
    paid_at: Type.String({ description: 'When the first notification was received, `YYYY-MM-DD HH:MM:SS`.' }),
    starts_at: Type.String({
      description: 'Start of cover, `YYYY-MM-DD HH:MM:SS` in the service time zone.',
    }),
    ends_at: Type.String({ description: 'End of cover, `YYYY-MM-DD HH:MM:SS` in the service time zone.' }),
  },
  {
    examples: [
      {
        id: 2001,
        status: 'paid',
        policy_number: 'AMP-2026-002001',
        paid_at: '2026-11-21 10:20:00',
        starts_at: '2026-11-22 00:00:00',
        ends_at: '2027-11-22 00:00:00',
      },
    ],
  },
)

const PAYMENT_EFFECT = `The plan becomes \`paid\` with a \`policy_number\`, \`AMP-<year of payment>-<id
zero-padded to 6 digits>\` (\`AMP-2026-000042\`; the year in the service time zone), unique per plan.
Cover (\`starts_at\`) begins at 00:00 (service time zone) of the day after the payment and ends
(\`ends_at\`) 12 months later; \`status\` reads \`protected\` from \`starts_at\` and \`expired\` from \`ends_at\`.`

export const annualPlanPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const timeZone = config.timeZone
  const events = renderingContext(config)

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
in progress, another call answers 409 \`payment_in_progress\`, \`Retry-After\` the seconds until that
charge's claim runs out: a plan is never charged twice. A retry with the same \`Idempotency-Key\` and
body of a payment whose answer was lost (the server died after the card was charged) answers that
charge at once: 200 with the paid plan (or its 402), whether or not the worker has recorded it
meanwhile, before the state is checked. A payment with another card while such a charge is unrecorded
waits for it (409), then is answered from the state it left: 422 \`errors.status\` when it paid the
plan; never 200 for a card that was not charged.

Approved → 200 with the plan. ${PAYMENT_EFFECT} Only the card brand and last four digits are kept.

Declined → 402 \`{"message", "errors": {"creditCard": [...]}, "decline_code"}\` (as for subscriptions); the plan stays
\`awaiting_payment\` and may be paid with another card. Test cards: \`4111111111111111\` approves,
\`4000000000000002\` declines (\`card_declined\`), \`4000000000009995\` (\`insufficient_funds\`),
\`4000000000000069\` (\`expired_card\`).

${CARD_CALL_FAILURES}`,
        params: AnnualPlanParams,
        body: AnnualPlanCardBody,
        response: {
          200: AnnualPlan,
          ...errorResponses(...CARD_CALL_ERRORS, 'payment_in_progress'),
        },
      },
      // Ownership, then the mode, before the body: a partner that may only notify payments is told
      // so, not what its card lacks. A malformed id is left to validation's 404.
      preValidation: async (request) => {
        if (!request.getValidationFunction('params')?.(request.params)) return
        await refuseWrongGateway(request.partner, app.gateway, () =>
          requireAnnualPlanRow(db, request.partner.partnerId, request.params.id),
        )
      },
    },
    async (request, reply) => {
      const { partner, params, body } = request
      const view = () => ({ base: baseUrl(request), timeZone, now: request.clock.now().toISOString() })
      // The charge's settlement stores the answer with it: approved, the plan; declined, 402.
      const answer = settlement(reply, async (trx, result: ChargeResult) =>
        result.approved
          ? { status: 200, body: await showAnnualPlan(trx, partner.partnerId, params.id, view()) }
          : refusal(request, new CardDeclinedError(result.declineCode)),
      )
      const card = {
        number: body.card_number,
        expiry: body.card_expiry,
        cvv: body.card_cvv,
        holder: body.card_holder,
      }
      await payAnnualPlanByCard(db, partner, params.id, card, body.installments ?? 1, {
        ...cardCallContext(request),
        ...events,
        settleIn: answer.transaction,
      })
      return answer.sendStored() ?? showAnnualPlan(db, partner.partnerId, params.id, view())
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
        response: { 200: PaymentNotice, ...errorResponses(401, 404, 422, 'invalid_state', 'wrong_gateway') },
      },
    },
    async (request, reply) => {
      const now = request.clock.now().toISOString()
      return commit(reply, async (trx) =>
        paymentNoticeResource(
          await notifyAnnualPlanPayment(trx, request.partner, request.params.id, { now, ...events }),
          now,
          timeZone,
        ),
      )
    },
  )
}
