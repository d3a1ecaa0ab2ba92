import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { commit } from '../../plugins/unit-of-work.js'
import { amountToCents } from '../../shared/money.js'
import { Claim, ClaimParams } from '../claims/claim.schemas.js'
import { approveClaim, denyClaim, settleClaim } from '../claims/claim-decision.service.js'
import { renderingContext } from '../events/event.service.js'
import { DecisionBody, SettleBody } from './sandbox-claims.schemas.js'

const tags = ['Sandbox']

const RULES = `Under the operator's rules (README, Claims: decision and settlement): of two decisions at
once one wins, the other answers 422 \`invalid_state\`; a claim in another status answers 422
\`invalid_state\` under \`status\`; another partner's claim answers 404.`

/**
 * The operator's decision and settlement, for a partner to try its claims' flow and webhooks alone;
 * registered only in `AMPARO_ENV=test` (production answers 404), like the sandbox clock.
 */
export const sandboxClaimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app
  const rendering = renderingContext(config)

  app.post(
    '/sandbox/claims/:id/decision',
    {
      schema: {
        tags,
        operationId: 'decideSandboxClaim',
        summary: 'Decide a claim in the sandbox',
        description: `Test environment only. Decides the partner's claim as an operator would.
\`approved\` (from \`under_review\`) needs \`settlement_method\` (\`repair\`, \`replacement\`, \`indemnity\`)
and \`approved_amount\` (> 0, ≤ the contract's LMI; \`payable_amount\` = approved − franchise, never
below 0); \`denied\` (from \`documents_pending\` or \`under_review\`) needs \`reason_code\` and a
\`note\` the partner sees; a missing or wrong field answers 422 under it. Emits \`claim.approved\` or
\`claim.denied\`. ${RULES}`,
        params: ClaimParams,
        body: DecisionBody,
        response: { 200: Claim, ...errorResponses(400, 401, 404, 413, 415, 422, 'invalid_state') },
      },
    },
    async (request, reply) => {
      const moment = { now: request.clock.now().toISOString(), rendering }
      const decider = { partnerId: request.partner.partnerId }
      const { id } = request.params
      const body = request.body
      return commit(reply, (trx) =>
        body.outcome === 'approved'
          ? approveClaim(
              trx,
              decider,
              id,
              {
                settlementMethod: body.settlement_method ?? '',
                approvedAmount:
                  body.approved_amount === undefined ? null : amountToCents(body.approved_amount),
              },
              moment,
            )
          : denyClaim(
              trx,
              decider,
              id,
              { reasonCode: body.reason_code ?? '', note: body.note ?? '' },
              moment,
            ),
      )
    },
  )

  app.post(
    '/sandbox/claims/:id/settle',
    {
      schema: {
        tags,
        operationId: 'settleSandboxClaim',
        summary: 'Settle a claim in the sandbox',
        description: `Test environment only. Settles the partner's approved claim, with an optional
\`reference\` (the repair order or transfer id, ≤ 100 characters), and emits \`claim.settled\`. A
\`replacement\` or \`indemnity\` ends the contract in the same step: a subscription becomes
\`canceled\` with \`cancellation.reason\` \`claim_settled\` (its unpaid installments canceled, nothing
more charged; \`subscription.canceled\`), an annual plan \`canceled\` with \`cancellation.reason\`
\`claim_settled\`, \`refund_amount\` 0 and \`refund_status\` \`none\` (\`annual_plan.canceled\`); its
device may then be protected again. A \`repair\` leaves the contract in force. While a card charge of
the contract is in progress, 409. ${RULES}`,
        params: ClaimParams,
        body: SettleBody,
        response: {
          200: Claim,
          ...errorResponses(400, 401, 404, 413, 415, 422, 'invalid_state', 'payment_in_progress'),
        },
      },
    },
    async (request, reply) => {
      const moment = { now: request.clock.now().toISOString(), rendering }
      const decider = { partnerId: request.partner.partnerId }
      return commit(reply, (trx) =>
        settleClaim(trx, decider, request.params.id, request.body.reference ?? null, moment),
      )
    },
  )
}
