import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { CodeMethod } from '../../db/tables/payment-code.js'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { Boleto, CODE_RULES, PixCode } from '../payments/payment-code.schemas.js'
import { boletoResource, pixResource } from '../payments/payment-code.service.js'
import { AnnualPlanParams } from './annual-plan.schemas.js'
import { requestAnnualPlanCode } from './annual-plan-code.service.js'

const tags = ['Annual plans']
const STATES = `Another partner's or an unknown plan → 404; an external-gateway partner → 422 \`errors.gateway\`; a plan
not awaiting payment → 422 \`errors.status\`.`

export const annualPlanCodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const requested = (request: FastifyRequest, id: number, method: CodeMethod) =>
    requestAnnualPlanCode(db, request.partner, id, method, {
      gateway: app.gateway,
      clock: request.clock,
      timeZone: config.timeZone,
      log: request.log,
    })
  const viewOf = (request: FastifyRequest) => ({
    base: baseUrl(request),
    timeZone: config.timeZone,
    now: request.clock.now().toISOString(),
  })

  app.post(
    '/annual-plans/:id/pix',
    {
      schema: {
        tags,
        operationId: 'requestAnnualPlanPix',
        summary: 'A PIX code to pay an annual plan (own gateway)',
        description: `For own-gateway partners: a PIX code for the whole premium, valid for an hour; paid, the plan is
\`paid\` and covered from 00:00 of the next day. No body. ${STATES}

${CODE_RULES}`,
        params: AnnualPlanParams,
        response: {
          200: PixCode,
          201: PixCode,
          ...errorResponses(401, 404, 422, 'invalid_state', 'wrong_gateway', 'gateway_error'),
        },
      },
    },
    async (request, reply) => {
      const { code, created } = await requested(request, request.params.id, 'pix')
      return reply.code(created ? 201 : 200).send(pixResource(code, viewOf(request)))
    },
  )

  app.post(
    '/annual-plans/:id/boleto',
    {
      schema: {
        tags,
        operationId: 'requestAnnualPlanBoleto',
        summary: 'A boleto to pay an annual plan (own gateway)',
        description: `For own-gateway partners: a boleto for the whole premium, payable until the end of the third calendar
day (service time zone) after it is made; banks take a business day or two to confirm it, and the plan is
\`paid\` (covered from 00:00 of the next day) when they do. The boleto prints the customer's name,
CPF/CNPJ and address: a customer without street, city, state and zip code → 422
\`errors["customer.address"]\`. No body. ${STATES}

${CODE_RULES}`,
        params: AnnualPlanParams,
        response: {
          200: Boleto,
          201: Boleto,
          ...errorResponses(401, 404, 422, 'invalid_state', 'wrong_gateway', 'gateway_error'),
        },
      },
    },
    async (request, reply) => {
      const { code, created } = await requested(request, request.params.id, 'boleto')
      return reply.code(created ? 201 : 200).send(boletoResource(code, viewOf(request)))
    },
  )
}
