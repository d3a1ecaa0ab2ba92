import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl, pageFor } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { normalizeDocument } from '../../shared/documents.js'
import { PageOf, pageOffset } from '../../shared/pagination.js'
import { renderingContext } from '../events/event.service.js'
import { installmentResource } from './subscription.mapper.js'
import {
  InstallmentList,
  SerialsBody,
  Subscription,
  SubscriptionBody,
  SubscriptionListQuery,
  SubscriptionParams,
} from './subscription.schemas.js'
import {
  contractSubscription,
  listInstallmentsOf,
  readSubscription,
  showSubscription,
  subscriptionPage,
} from './subscription.service.js'
import { informSerials } from './subscription-serials.service.js'

const tags = ['Subscriptions']

const ONE_PROTECTION = `A device has one active protection across the whole service: a serial number that already
has one (a \`pending\` or \`pago\` subscription not past its end, or an annual plan \`awaiting_payment\`, \`paid\` or
\`protected\`, of any partner, an IMEI included) → 422 under that field. Serials compare without case,
spaces or punctuation (\`ABC-123 \` is \`abc123\`), any script's digits as ASCII ones and look-alike letters
(Cyrillic \`А\`, Greek \`Α\`) as the Latin ones, O as 0 and I as 1; a serial that is not Latin letters and
digits once read so → 422. To protect the device again, cancel its current protection first
(\`POST /subscriptions/{id}/cancellation\`, or the annual plan's cancellation).`

export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app
  const rendering = renderingContext(config)

  app.post(
    '/subscriptions',
    {
      schema: {
        tags,
        operationId: 'contractSubscription',
        summary: 'Contract a subscription',
        description: `Contracts a monthly subscription: \`status\` is \`pending\` until installment 1 is paid
(notify-payment for external-gateway partners, \`POST /subscriptions/{id}/payment\` for own-gateway ones).
Still unpaid on the 30th calendar day after the contract date (service time zone; contracted on
21 November → from 00:00 on 21 December), it is \`canceled\` with its installments.

The customer is named by \`customer_id\` or \`customer_document\` (one is required). The price is the
quotation's for the same inputs: LMI = \`maxima\` when inside the partner's authorized range, else the
model default; monthly value (\`valor\`) = LMI × the plan's monthly rate, franchise = LMI × the plan's
franchise rate, each half-up to the cent. Installment k is due k−1 months after today (service time
zone), clamped to the month's end; all are created with the subscription.

Fields that are not inputs (\`status\`, \`lmi\`, \`valor\`, ids) are ignored. Unknown or another
partner's plan, customer, model or store → 422 under that field.

${ONE_PROTECTION}`,
        body: SubscriptionBody,
        response: { 201: Subscription, ...errorResponses(400, 401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const moment = {
        now: request.clock.now().toISOString(),
        realNow: clock.now().toISOString(),
        timeZone: config.timeZone,
      }
      // The answer comes from the contract itself, not from a read after the commit: a committed
      // subscription never answers 503.
      return commit(reply.code(201), (trx) =>
        contractSubscription(trx, request.partner, request.body, moment, rendering, baseUrl(request)),
      )
    },
  )

  app.get(
    '/subscriptions',
    {
      schema: {
        tags,
        operationId: 'listSubscriptions',
        summary: 'List subscriptions',
        description:
          'The partner’s subscriptions, newest first, paginated (15 per page). Extension filters: `filter[status]` and `filter[customer_document]`.',
        querystring: SubscriptionListQuery,
        response: { 200: PageOf(Subscription), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { query } = request
      const page = { page: query.page, perPage: query.per_page }
      const document = query['filter[customer_document]']
      const filter = {
        status: query['filter[status]'],
        customerDocument: document === undefined ? undefined : normalizeDocument(document)?.value,
      }
      const { data, total } = await subscriptionPage(
        db,
        request.partner.partnerId,
        filter,
        { offset: pageOffset(page), limit: page.perPage },
        { base: baseUrl(request), now: request.clock.now().toISOString() },
        rendering,
      )
      return pageFor(request, data, total, page)
    },
  )

  app.get(
    '/subscriptions/:subscriptionId',
    {
      schema: {
        tags,
        operationId: 'getSubscription',
        summary: 'Get a subscription',
        description:
          'One subscription of the partner. Use it to see it become `pago` once installment 1 is paid, and `expired` once the month of its last installment has passed (the first read to show it writes `subscription.expired` if the worker has not yet).',
        params: SubscriptionParams,
        response: { 200: Subscription, ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      readSubscription(
        db,
        request.partner.partnerId,
        request.params.subscriptionId,
        { base: baseUrl(request), now: request.clock.now().toISOString() },
        rendering,
      ),
  )

  app.patch(
    '/subscriptions/:subscriptionId',
    {
      schema: {
        tags,
        operationId: 'informSerials',
        summary: 'Inform a subscription’s serial numbers',
        description: `The seed's "may be informed later by the insured": sets \`serial_number\` and
\`second_serial_number\` when not set yet. Sending a set one again as the same device changes
nothing; changing it → 422 under that field; the two must differ. A canceled subscription → 422
\`errors.status\`. A repeat of a call that succeeded answers the same. Answers the subscription.

${ONE_PROTECTION}`,
        params: SubscriptionParams,
        body: SerialsBody,
        response: { 200: Subscription, ...errorResponses(400, 401, 404, 413, 415, 422, 'invalid_state') },
      },
    },
    async (request, reply) => {
      const { partnerId } = request.partner
      const id = request.params.subscriptionId
      const time = {
        now: request.clock.now().toISOString(),
        realNow: clock.now().toISOString(),
        timeZone: config.timeZone,
      }
      return commit(reply, async (trx) => {
        await informSerials(trx, partnerId, id, request.body, time)
        return showSubscription(trx, partnerId, id, baseUrl(request), config.timeZone)
      })
    },
  )

  app.get(
    '/subscriptions/:subscriptionId/installments',
    {
      schema: {
        tags,
        operationId: 'listInstallments',
        summary: 'List a subscription’s installments',
        description:
          'Every installment, by number. Its `id` (not `number`) identifies it in notify-payment calls. Statuses: `pending`, `paid`, `refused`, `canceled`, with pt-BR labels.',
        params: SubscriptionParams,
        response: { 200: InstallmentList, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const rows = await listInstallmentsOf(db, request.partner.partnerId, request.params.subscriptionId)
      return rows.map((row) => installmentResource(row, config.timeZone))
    },
  )
}
