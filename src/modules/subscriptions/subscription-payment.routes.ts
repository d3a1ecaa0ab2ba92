import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { errorResponse, errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { cardCallContext } from '../../plugins/context.js'
import { commit, refusal, settlement } from '../../plugins/unit-of-work.js'
import { formatTimestamp } from '../../shared/time.js'
import { renderingContext } from '../events/event.service.js'
import { CARD_CALL_ERRORS, CARD_CALL_FAILURES, CardDeclinedError } from '../payments/card.js'
import { type ChargeResult, refuseWrongGateway } from '../payments/payment-gateway.js'
import { INSTALLMENT_STATUS_LABELS } from './subscription.rules.js'
import { Subscription, SubscriptionParams } from './subscription.schemas.js'
import { requireSubscriptionState, showSubscription } from './subscription.service.js'
import { type CardUpdateStep, updateSubscriptionCard } from './subscription-card.service.js'
import { CardPaymentBody, InstallmentParams, NotifiedInstallment } from './subscription-payment.schemas.js'
import { notifyInstallmentPayment, payFirstInstallmentByCard } from './subscription-payment.service.js'

const tags = ['Subscriptions']

const inProgress = (what: string) =>
  errorResponse(409, `${what}: try again once it has answered.`, ['payment_in_progress'])

const SANDBOX_CARDS = `In the test environment the sandbox gateway answers by card number: \`4111111111111111\` and
\`5555555555554444\` approve; \`4000000000000002\` declines (\`card_declined\`), \`4000000000009995\`
(\`insufficient_funds\`), \`4000000000000069\` (\`expired_card\`); \`4000000000000341\` approves this charge
and declines every later one (the recurrence's failure path); any other Luhn-valid number approves.`

export const subscriptionPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const events = renderingContext(config)
  // Each call answers with the subscription as it now is.
  const subscriptionOf = (request: FastifyRequest, id: number) =>
    showSubscription(db, request.partner.partnerId, id, baseUrl(request), config.timeZone)

  // The card calls check ownership, then the mode, before the body: a partner that may only notify
  // payments is told so, not what its card lacks. A malformed id is left to validation's 404.
  const gatewayFirst = async (request: FastifyRequest<{ Params: SubscriptionParams }>) => {
    if (!request.getValidationFunction('params')?.(request.params)) return
    await refuseWrongGateway(request.partner, app.gateway, () =>
      requireSubscriptionState(db, request.partner.partnerId, request.params.subscriptionId),
    )
  }

  app.post(
    '/subscriptions/:subscriptionId/installments/:installmentId/notify-payment',
    {
      schema: {
        tags,
        operationId: 'notifyInstallmentPayment',
        summary: 'Notify the payment of an installment (external gateway)',
        description: `For partners that collect payments themselves (external gateway): records that the
installment was paid. No body; the second path id is the installment's \`id\`, not its \`number\`.

Installment 1 activates the subscription (\`pending\` → \`pago\`); later ones only record the payment
and need installment 1 paid first. Notifying an installment already paid answers the same 200 again,
with the first \`paid_at\`, and records nothing twice, also when several notifications race. A canceled
installment or subscription → 422 \`errors.status\`; another subscription's installment, or another
partner's → 404. Then an own-gateway partner → 422 \`errors.gateway\`, before the state rules.

Installment 1 of a subscription that expired unpaid → 422 \`errors.status\`, nothing recorded: from
00:00 (service time zone) of the 30th calendar day after the day it was contracted, the worker cancels
a subscription whose installment 1 is unpaid, and the notification is refused from that moment even
if the worker has not run yet (the subscription may still read \`pending\` until it does).`,
        params: InstallmentParams,
        response: {
          200: NotifiedInstallment,
          ...errorResponses(401, 404, 422, 'invalid_state', 'wrong_gateway'),
        },
      },
    },
    async (request, reply) => {
      const { subscriptionId, installmentId } = request.params
      const moment = { now: request.clock.now(), ...events }
      return commit(reply, async (trx) => {
        const row = await notifyInstallmentPayment(
          trx,
          request.partner,
          subscriptionId,
          installmentId,
          moment,
        )
        return {
          id: row.id,
          number: row.number,
          status: row.status,
          status_label: INSTALLMENT_STATUS_LABELS.paid,
          paid_at: formatTimestamp(row.paid_at, config.timeZone),
        }
      })
    },
  )

  app.post(
    '/subscriptions/:subscriptionId/payment',
    {
      schema: {
        tags,
        operationId: 'payFirstInstallmentByCard',
        summary: 'Pay installment 1 by card (own gateway)',
        description: `For own-gateway partners: charges installment 1 to the card and, when approved, activates
the subscription (\`pending\` → \`pago\`) and answers it. Later installments are charged by the
recurrence on their due dates with the gateway's token; only that token, the brand and the last four
digits are kept; the card number and security code are never stored or logged.

Another partner's or an unknown subscription → 404. Then an external-gateway partner, or an environment
without card payments → 422 \`errors.gateway\` alone, whatever the body: it is checked before the body is
validated. A subscription that is not \`pending\` → 422 \`errors.status\`; so is one that expired unpaid
(from 00:00, service time zone, of the 30th calendar day after the day it was contracted, when the
worker cancels it), even if the worker has not canceled it yet: the card is not charged. The card must pass: \`number\` with a
valid Luhn check digit, \`expiry\` a month 01–12 not before the current one (\`MMYY\`), \`cvv\` of 3 or 4
digits, else 422 under \`creditCard.number\`, \`creditCard.expiry\` or \`creditCard.cvv\`.

Declined → 402 with \`decline_code\` and \`errors.creditCard\`; installment 1 becomes \`refused\`, the
subscription stays \`pending\` and a later approved try pays it. Every attempt is recorded. While
another payment of the same subscription is being charged → 409 \`payment_in_progress\`, \`Retry-After\`
the seconds until that charge's claim runs out; try again then. A retry with the same
\`Idempotency-Key\` and body of a payment whose answer was lost (the server died after the card was
charged) answers that charge at once: 200 with the \`pago\` subscription (or its 402), whether or not
the worker has recorded it meanwhile, before any state check. A payment with another card while such a
charge is unrecorded waits for it (409), then is answered from the state it left: 422 \`errors.status\`
when it paid installment 1; never 200 for a card that was not charged.

${CARD_CALL_FAILURES}

${SANDBOX_CARDS}`,
        params: SubscriptionParams,
        body: CardPaymentBody,
        response: {
          200: Subscription,
          ...errorResponses(...CARD_CALL_ERRORS),
          409: inProgress('Another payment of this installment is being charged'),
        },
      },
      preValidation: gatewayFirst,
    },
    async (request, reply) => {
      const { subscriptionId } = request.params
      const { partnerId } = request.partner
      // The charge's settlement stores the answer with it: approved, the subscription; declined, 402.
      const answer = settlement(reply, async (trx, result: ChargeResult) =>
        result.approved
          ? {
              status: 200,
              body: await showSubscription(trx, partnerId, subscriptionId, baseUrl(request), config.timeZone),
            }
          : refusal(request, new CardDeclinedError(result.declineCode)),
      )
      await payFirstInstallmentByCard(db, request.partner, subscriptionId, request.body.creditCard, {
        ...cardCallContext(request),
        ...events,
        settleIn: answer.transaction,
      })
      return answer.sendStored() ?? subscriptionOf(request, subscriptionId)
    },
  )

  app.put(
    '/subscriptions/:subscriptionId/card',
    {
      schema: {
        tags,
        operationId: 'updateSubscriptionCard',
        summary: 'Replace the card of a subscription (own gateway)',
        description: `For own-gateway partners: the way to recover a renewal the bank refused while its retries
are still running. The gateway verifies the new card without charging it; declined → 402 with
\`decline_code\` and the old card stays. Approved: the new card replaces the old one for the recurrence
(\`card\` shows its brand and last four digits), then every installment that is due and unpaid is charged
to it at once, oldest first → 200 with the subscription. Should one of those charges be declined → 402:
the new card is kept, the installment stays on its retry schedule, and the later ones are not charged.

Another partner's or an unknown subscription → 404. Then an external-gateway partner, or an environment
without card payments → 422 \`errors.gateway\`, before the body is validated. A \`canceled\` subscription
→ 422 \`errors.status\`; so is a \`pending\` one: its installment 1 is paid with
\`POST /subscriptions/{id}/payment\`, which keeps that card. The card as in the payment call (422 under
\`creditCard.number\`, \`creditCard.expiry\` or \`creditCard.cvv\`). While a charge of this subscription is
in progress → 409.

${CARD_CALL_FAILURES}

${SANDBOX_CARDS} Verification refuses the declining cards; \`4000000000000341\` passes it and declines later.`,
        params: SubscriptionParams,
        body: CardPaymentBody,
        response: {
          200: Subscription,
          ...errorResponses(...CARD_CALL_ERRORS),
          409: inProgress('A charge of this subscription is in progress'),
        },
      },
      preValidation: gatewayFirst,
    },
    async (request, reply) => {
      const { subscriptionId } = request.params
      const { partnerId } = request.partner
      // The check, then each due charge, commit one by one; the one that ends the update stores the
      // answer with it: the subscription, or 402. A retry after a crash before then goes on.
      const answer = settlement(reply, async (trx, step: CardUpdateStep) => {
        if (step === 'continues') return null
        if (step === 'updated') {
          const body = await showSubscription(
            trx,
            partnerId,
            subscriptionId,
            baseUrl(request),
            config.timeZone,
          )
          return { status: 200, body }
        }
        return refusal(request, new CardDeclinedError(step.declined))
      })
      await updateSubscriptionCard(db, request.partner, subscriptionId, request.body.creditCard, {
        ...cardCallContext(request),
        ...events,
        settleIn: answer.transaction,
      })
      return answer.sendStored() ?? subscriptionOf(request, subscriptionId)
    },
  )
}
