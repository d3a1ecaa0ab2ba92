import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { pageFor } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { normalizeDocument } from '../../shared/documents.js'
import { PageOf, pageOffset } from '../../shared/pagination.js'
import { Claim, ClaimBody, ClaimListQuery, ClaimParams } from './claim.schemas.js'
import { listClaims, showClaim, withdrawClaim } from './claim.service.js'
import { openClaim } from './claim-opening.service.js'

const tags = ['Claims']

const OPENING_RULES = `Exactly one of \`subscription_id\` and \`annual_plan_id\` names the contract (unknown or
another partner's → 422 under that field). Refused with 422:

| rule | code | key |
|---|---|---|
| \`occurred_at\` not \`YYYY-MM-DD HH:MM:SS\`, in the future, or more than the plan's \`claim_notice_days\` ago | \`validation_failed\` | \`occurred_at\` |
| the contract was not in force at \`occurred_at\`: a subscription \`pago\` (or \`expired\` since), the loss at or after installment 1 was paid, every installment due more than 10 days before the loss paid (by now); an annual plan with \`starts_at ≤ occurred_at < ends_at\`, not canceled before it | \`validation_failed\` | \`occurred_at\` |
| \`type\` not among the plan's \`coverage_types\` | \`validation_failed\` | \`type\` |
| \`robbery\` or \`qualified_theft\` without \`police_report.number\` (Boletim de Ocorrência) | \`validation_failed\` | \`police_report.number\` |
| \`police_report.issued_on\` after today (service time zone) | \`validation_failed\` | \`police_report.issued_on\` |
| another claim of the contract still open (\`documents_pending\`, \`under_review\`, or \`approved\` and not settled) | \`invalid_state\` | \`status\` |
| the plan's \`max_claims_per_year\` claims of the contract approved in the 365 days before \`occurred_at\` (or since) | \`invalid_state\` | \`status\` |`

export const claimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const { timeZone } = config

  app.post(
    '/claims',
    {
      schema: {
        tags,
        operationId: 'openClaim',
        summary: 'Open a claim',
        description: `Opens a claim (sinistro) on one of the partner's contracts: 201 with the claim,
\`status: documents_pending\`, a \`number\` \`SIN-<year>-<6 digits>\` and the kinds of document still
missing in \`required_documents\` (upload them with \`POST /claims/{id}/documents\`). Writes \`claim.opened\`.

The example's \`occurred_at\` is a sample date: send the moment of the loss, which must lie within the
plan's \`claim_notice_days\` (30 on the demo) before now and after installment 1 was paid. On a fresh
demo, subscription 1's installment 1 was paid 7 days before the demo was loaded: yesterday evening
works on any day (the README's walkthrough sends \`$YESTERDAY 21:30:00\`).

${OPENING_RULES}`,
        body: ClaimBody,
        response: { 201: Claim, ...errorResponses(400, 401, 413, 415, 422, 'invalid_state') },
      },
    },
    async (request, reply) => {
      const { partnerId } = request.partner
      const now = request.clock.now().toISOString()
      return commit(reply.code(201), (trx) => openClaim(trx, partnerId, request.body, now, timeZone))
    },
  )

  app.get(
    '/claims',
    {
      schema: {
        tags,
        operationId: 'listClaims',
        summary: 'List claims',
        description: `The partner's claims, newest first, paginated (15 per page). Filters:
\`filter[status]\`, \`filter[subscription_id]\`, \`filter[annual_plan_id]\`, \`filter[customer_document]\`.`,
        querystring: ClaimListQuery,
        response: { 200: PageOf(Claim), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { query } = request
      const page = { page: query.page, perPage: query.per_page }
      const document = query['filter[customer_document]']
      const filter = {
        status: query['filter[status]'],
        subscriptionId: query['filter[subscription_id]'],
        annualPlanId: query['filter[annual_plan_id]'],
        customerDocument: document === undefined ? undefined : normalizeDocument(document)?.value,
      }
      const limits = { offset: pageOffset(page), limit: page.perPage }
      const { data, total } = await listClaims(db, request.partner.partnerId, filter, limits, timeZone)
      return pageFor(request, data, total, page)
    },
  )

  app.get(
    '/claims/:id',
    {
      schema: {
        tags,
        operationId: 'getClaim',
        summary: 'Get a claim',
        description:
          "One claim of the partner, with its documents and decision; another partner's answers 404.",
        params: ClaimParams,
        response: { 200: Claim, ...errorResponses(401, 404) },
      },
    },
    async (request) => showClaim(db, request.partner.partnerId, request.params.id, timeZone),
  )

  app.post(
    '/claims/:id/withdraw',
    {
      schema: {
        tags,
        operationId: 'withdrawClaim',
        summary: 'Withdraw a claim',
        description: `The insured gives up the claim: \`withdrawn\` (Desistência) from \`documents_pending\` or
\`under_review\`, 200 with the claim and \`claim.withdrawn\`. Any other status (decided, settled, already
withdrawn) → 422 \`invalid_state\`. Another partner's claim → 404.`,
        params: ClaimParams,
        response: { 200: Claim, ...errorResponses(401, 404, 'invalid_state') },
      },
    },
    async (request, reply) => {
      const { partnerId } = request.partner
      const now = request.clock.now().toISOString()
      return commit(reply, (trx) => withdrawClaim(trx, partnerId, request.params.id, now, timeZone))
    },
  )
}
