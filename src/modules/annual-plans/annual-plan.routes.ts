import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl, pageFor } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { normalizeDocument } from '../../shared/documents.js'
import { PageOf, pageOffset } from '../../shared/pagination.js'
import { renderingContext } from '../events/event.service.js'
import { AnnualPlan, AnnualPlanBody, AnnualPlanListQuery, AnnualPlanParams } from './annual-plan.schemas.js'
import { contractAnnualPlan, listAnnualPlans, readAnnualPlan, showAnnualPlan } from './annual-plan.service.js'

const tags = ['Annual plans']

const STATUS_RULE = `\`status\` is read from the clock on every call: \`awaiting_payment\` until paid,
\`paid\` until 00:00 (service time zone) of the day after payment, \`protected\` during the 12 months
of cover, \`expired\` from \`ends_at\`, \`canceled\` once a cancellation is confirmed.`

export const annualPlanRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app
  const rendering = renderingContext(config)

  app.post(
    '/annual-plans',
    {
      schema: {
        tags,
        operationId: 'contractAnnualPlan',
        summary: 'Contract an annual plan',
        description: `Contracts the 12-month single-payment Annual Plan: 201 with the plan,
\`status: awaiting_payment\` and \`policy_number: null\` until it is paid (\`POST
/annual-plans/{id}/payment\` for own-gateway partners, \`POST /annual-plans/{id}/notify-payment\` for
external-gateway ones).

**Price.** \`lmi\` and \`premium\` are those of \`GET /annual-plans/quote\` for the same \`model_id\`,
\`maxima\`, \`is_used\` (alias \`used\`) and \`plan_id\` (default: the partner's default annual plan).

**Payment.** External-gateway partners must send \`payment\` (\`method\` \`credit_card\`, \`slip\` or
\`pix\`; \`installments\` 1–12, required for \`credit_card\`) → else 422 \`errors.payment\` or
\`errors['payment.installments']\`. Own-gateway partners' \`payment\` is ignored.

**Device.** \`imei\` (and \`imei_2\`): 15 digits with a valid Luhn check digit; \`imei_2\` must differ
from \`imei\` (422 \`errors.imei_2\`). A device has one active protection across the whole service:
an IMEI that already has one (an annual plan \`awaiting_payment\`, \`paid\` or \`protected\`, or a
\`pending\` or \`pago\` subscription naming it as a serial, of any partner) → 422 under that field.
To protect the device again, cancel its current protection first (request and confirm the annual
plan's cancellation, or \`POST /subscriptions/{id}/cancellation\`); an expired plan holds it no more.

The customer is named by \`customer_id\` or \`customer_document\`. Unknown or another partner's plan,
customer, model or store → 422 under that field. A 422 lists every malformed field at once, and
the lookups' errors together once the body is well-formed. Fields that are not inputs
(\`status\`, \`premium\`, \`policy_number\`, ids) are ignored.`,
        body: AnnualPlanBody,
        response: { 201: AnnualPlan, ...errorResponses(400, 401, 413, 415, 422) },
      },
      // Ignored means not validated either: an own-gateway partner's stray or malformed `payment`
      // (README, Annual plans) must not refuse the contract.
      preValidation: async (request) => {
        const body = request.body as Record<string, unknown> | null
        if (request.partner.gateway === 'own' && body && typeof body === 'object') delete body.payment
      },
    },
    async (request, reply) => {
      const view = {
        base: baseUrl(request),
        timeZone: config.timeZone,
        now: request.clock.now().toISOString(),
      }
      const { partner } = request
      // Read back before the commit: a committed plan never answers 503.
      return commit(reply.code(201), async (trx) => {
        const time = { now: view.now, realNow: clock.now().toISOString() }
        const id = await contractAnnualPlan(trx, partner, request.body, time, rendering)
        return showAnnualPlan(trx, partner.partnerId, id, view)
      })
    },
  )

  app.get(
    '/annual-plans',
    {
      schema: {
        tags,
        operationId: 'listAnnualPlans',
        summary: 'List annual plans',
        description: `The partner's annual plans, newest first, paginated (15 per page). Extension
filters: \`filter[status]\` (the status the clock gives now) and \`filter[customer_document]\`.

${STATUS_RULE}`,
        querystring: AnnualPlanListQuery,
        response: { 200: PageOf(AnnualPlan), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { query } = request
      const view = {
        base: baseUrl(request),
        timeZone: config.timeZone,
        now: request.clock.now().toISOString(),
      }
      const page = { page: query.page, perPage: query.per_page }
      const document = query['filter[customer_document]']
      const filter = {
        status: query['filter[status]'],
        customerDocument: document === undefined ? undefined : normalizeDocument(document)?.value,
      }
      const limits = { offset: pageOffset(page), limit: page.perPage }
      const { data, total } = await listAnnualPlans(
        db,
        request.partner.partnerId,
        filter,
        limits,
        view,
        rendering,
      )
      return pageFor(request, data, total, page)
    },
  )

  app.get(
    '/annual-plans/:id',
    {
      schema: {
        tags,
        operationId: 'getAnnualPlan',
        summary: 'Get an annual plan',
        description: `One annual plan of the partner; another partner's answers 404.

${STATUS_RULE}`,
        params: AnnualPlanParams,
        response: { 200: AnnualPlan, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const view = {
        base: baseUrl(request),
        timeZone: config.timeZone,
        now: request.clock.now().toISOString(),
      }
      return readAnnualPlan(db, request.partner.partnerId, request.params.id, view, rendering)
    },
  )
}
