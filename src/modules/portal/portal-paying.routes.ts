import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { consoleError } from '../../console/console-schemas.js'
import { renderingContext } from '../events/event.service.js'
import { pixImage } from '../payments/payment-code.service.js'
import { CardPaymentBody } from '../subscriptions/subscription-payment.schemas.js'
import {
  AnnualPlanContractParams,
  InstallmentPixParams,
  PixCodeParams,
  PixImageParams,
  PortalContract,
  PortalPixCode,
  SubscriptionContractParams,
  signedInErrors,
} from './portal.schemas.js'
import { listPortalContracts } from './portal-contracts.service.js'
import {
  insuredPixCode,
  type PayingCall,
  payByCard,
  payingContract,
  portalPix,
  replaceCard,
  requestPix,
} from './portal-paying.service.js'

const tags = ['Paying']
const notFound = consoleError('Not one of the insured’s contracts, installments or codes.', 'not_found')
const refused = consoleError(
  'Refused by the rules of the partner API’s call; `errors` names the field (`gateway`: the partner collects its payments itself).',
  'validation_failed',
  'invalid_state',
  'wrong_gateway',
)
const cardErrors = {
  402: consoleError('The card was declined; `errors.creditCard` says why.', 'card_declined'),
  404: notFound,
  409: consoleError('A charge of this contract is at the gateway: try again shortly.', 'payment_in_progress'),
  422: refused,
  429: consoleError('Too many declined cards on this contract today.', 'rate_limited'),
  502: consoleError('The gateway refused the request.', 'gateway_error'),
  ...signedInErrors,
}
const SANDBOX = `In the test environment the sandbox gateway takes the partner API's test cards: \`4111111111111111\`
approves, \`4000000000000002\` declines.`

/** Paying from the insured's page (README, Portal do segurado): own-gateway contracts only. */
export const portalPayingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const call = (request: FastifyRequest): PayingCall => ({
    origin: { insured: request.insured, ip: request.ip },
    gateway: app.gateway,
    clock: app.clock,
    sandboxClocks: config.env === 'test',
    claimSeconds: config.paymentClaimSeconds,
    cardDeclineLimits: config.cardDeclineLimits,
    log: request.log,
    ...renderingContext(config),
  })
  // Each card call answers with the contract as Minhas proteções now shows it.
  const contractView = async (request: FastifyRequest, id: number) => {
    const moment = { now: app.clock.now(), timeZone: config.timeZone, sandboxClocks: config.env === 'test' }
    const { data } = await listPortalContracts(db, request.insured, moment)
    return data.find((c) => c.kind === 'subscription' && c.id === id)
  }

  app.put(
    '/api/contracts/subscription/:id/card',
    {
      schema: {
        tags,
        operationId: 'replaceCard',
        summary: 'Trocar cartão: the partner API’s card update on the insured’s subscription',
        description: `The rules of the partner API's \`PUT /subscriptions/{id}/card\`: the gateway verifies the card
without charging it (declined → 402, the old card stays), it replaces the old one for the recurrence, then
every installment due and unpaid is charged to it. A pending or ended subscription → 422; another
document's → 404; a partner that collects its payments itself → 422 \`errors.gateway\`.

${SANDBOX}`,
        params: SubscriptionContractParams,
        body: CardPaymentBody,
        response: { 200: PortalContract, ...cardErrors },
      },
      config: { insured: true },
    },
    async (request) => {
      const { id } = request.params
      const contract = await payingContract(db, request.insured, 'subscription', id, call(request))
      await replaceCard(db, contract, request.body.creditCard, call(request))
      return contractView(request, id)
    },
  )

  app.post(
    '/api/contracts/subscription/:id/payment',
    {
      schema: {
        tags,
        operationId: 'payByCard',
        summary: 'Pagar parcela: pay what is due on the insured’s subscription by card',
        description: `Installment 1 of a pending subscription (declined before included) as the partner API's
\`POST /subscriptions/{id}/payment\`; on a subscription in force, the installments due and unpaid as its
\`PUT /subscriptions/{id}/card\` charges them, the card kept for the recurrence. Nothing due → 422
\`invalid_state\`; declined → 402; another document's → 404.

${SANDBOX}`,
        params: SubscriptionContractParams,
        body: CardPaymentBody,
        response: { 200: PortalContract, ...cardErrors },
      },
      config: { insured: true },
    },
    async (request) => {
      const { id } = request.params
      const contract = await payingContract(db, request.insured, 'subscription', id, call(request))
      await payByCard(db, contract, request.body.creditCard, call(request))
      return contractView(request, id)
    },
  )

  const pixErrors = {
    404: notFound,
    422: refused,
    502: consoleError('The gateway refused the request.', 'gateway_error'),
    ...signedInErrors,
  }
  const pixRules = `At most one pending code: asked again while payable, the same one (200); once expired, a new one
(201). Paid when the gateway says so; its status at \`GET /api/pix-codes/{id}\`.`

  app.post(
    '/api/contracts/subscription/:id/installments/:installmentId/pix',
    {
      schema: {
        tags,
        operationId: 'requestInstallmentPix',
        summary: 'Pagar com PIX: a code for an installment of the insured’s subscription',
        description: `The partner API's \`POST /subscriptions/{id}/installments/{iid}/pix\`. ${pixRules}`,
        params: InstallmentPixParams,
        response: { 200: PortalPixCode, 201: PortalPixCode, ...pixErrors },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const { id, installmentId } = request.params
      const contract = await payingContract(db, request.insured, 'subscription', id, call(request))
      const { code, created } = await requestPix(db, contract, installmentId, call(request))
      const view = portalPix(code, { timeZone: config.timeZone, now: contract.clock.now() })
      return reply.code(created ? 201 : 200).send(view)
    },
  )

  app.post(
    '/api/contracts/annual_plan/:id/pix',
    {
      schema: {
        tags,
        operationId: 'requestAnnualPlanPix',
        summary: 'Pagar com PIX: a code for the insured’s annual plan awaiting payment',
        description: `The partner API's \`POST /annual-plans/{id}/pix\`. ${pixRules}`,
        params: AnnualPlanContractParams,
        response: { 200: PortalPixCode, 201: PortalPixCode, ...pixErrors },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const contract = await payingContract(
        db,
        request.insured,
        'annual_plan',
        request.params.id,
        call(request),
      )
      const { code, created } = await requestPix(db, contract, null, call(request))
      const view = portalPix(code, { timeZone: config.timeZone, now: contract.clock.now() })
      return reply.code(created ? 201 : 200).send(view)
    },
  )

  app.get(
    '/api/pix-codes/:id',
    {
      schema: {
        tags,
        operationId: 'getPixCode',
        summary: 'One of the insured’s PIX codes, as it now stands (the page polls it)',
        params: PixCodeParams,
        response: { 200: PortalPixCode, 404: notFound, ...signedInErrors },
      },
      config: { insured: true },
    },
    async (request) => insuredPixCode(db, request.insured, request.params.id, call(request)),
  )

  app.get(
    '/api/pix/:image',
    {
      schema: {
        tags,
        operationId: 'getPixImage',
        summary: 'The QR code of a PIX code, as a PNG',
        description: 'The address a code’s `qr_code_png` gives; its token is random and unguessable.',
        params: PixImageParams,
        response: {
          200: Type.Unsafe<Buffer>({
            description: 'The QR code, a PNG image.',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          }),
          404: notFound,
          ...signedInErrors,
        },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const png = await pixImage(db, request.params.image.replace(/\.png$/, ''))
      return reply.type('image/png').header('cache-control', 'private, max-age=3600').send(png)
    },
  )
}
