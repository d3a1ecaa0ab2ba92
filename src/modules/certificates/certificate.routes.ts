import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { NotFoundError } from '../../shared/errors.js'
import { AnnualPlanParams } from '../annual-plans/annual-plan.schemas.js'
import { SubscriptionParams } from '../subscriptions/subscription.schemas.js'
import { CertificateCodeParams, CertificatePdf, CertificateVerification } from './certificate.schemas.js'
import {
  annualPlanCertificate,
  NOT_IN_FORCE,
  subscriptionCertificate,
  verifyCertificate,
} from './certificate.service.js'

const CERTIFICATE = `The individual insurance certificate the partner hands its customer, a PDF in Portuguese:
the policy number, the insured (name, CPF or CNPJ masked: \`***.982.247-**\`), the device (model, IMEI
or serial), each coverage with its LMI, the franchise, the term and the payment, the premium, the
partner and the store, how to file a claim, the issue date, and a verification code with its address
(\`GET /certificates/{code}\`). Only for a contract in force, else 422 \`invalid_state\`. Another
partner's contract → 404.`

function sendPdf(reply: FastifyReply, pdf: Buffer) {
  return reply
    .type('application/pdf')
    .header('content-disposition', 'inline; filename="certificado.pdf"')
    .header('cache-control', 'private, no-store')
    .send(pdf)
}

/** The partner's certificates (README, Certificates). */
export const certificateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const context = (request: Parameters<typeof baseUrl>[0]) => ({
    now: request.clock.now().toISOString(),
    timeZone: config.timeZone,
    base: baseUrl(request),
  })

  app.get(
    '/subscriptions/:subscriptionId/certificate',
    {
      config: { stateExample: `The subscription is pending. ${NOT_IN_FORCE}` },
      schema: {
        tags: ['Subscriptions'],
        operationId: 'getSubscriptionCertificate',
        summary: 'A subscription’s certificate (PDF)',
        description: `${CERTIFICATE} A subscription is in force while \`pago\` (not \`pending\`, \`canceled\` nor \`expired\`); its term runs from the payment of installment 1 to its end.`,
        params: SubscriptionParams,
        response: { 200: CertificatePdf, ...errorResponses(401, 404, 'invalid_state') },
      },
    },
    async (request, reply) =>
      sendPdf(
        reply,
        await subscriptionCertificate(
          db,
          request.partner.partnerId,
          request.params.subscriptionId,
          context(request),
        ),
      ),
  )

  app.get(
    '/annual-plans/:id/certificate',
    {
      config: { stateExample: `The annual plan is awaiting payment. ${NOT_IN_FORCE}` },
      schema: {
        tags: ['Annual plans'],
        operationId: 'getAnnualPlanCertificate',
        summary: 'An annual plan’s certificate (PDF)',
        description: `${CERTIFICATE} An annual plan is in force when \`paid\` or \`protected\`.`,
        params: AnnualPlanParams,
        response: { 200: CertificatePdf, ...errorResponses(401, 404, 'invalid_state') },
      },
    },
    async (request, reply) =>
      sendPdf(
        reply,
        await annualPlanCertificate(db, request.partner.partnerId, request.params.id, context(request)),
      ),
  )
}

/** The public verification of a certificate: no token, nothing personal. */
export const certificateVerificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app

  app.get(
    '/certificates/:code',
    {
      schema: {
        // With the other calls that need no token (the tags are declared by the OpenAPI plugin).
        tags: ['Service'],
        operationId: 'verifyCertificate',
        summary: 'Verify a certificate',
        description: `Anyone holding a certificate checks it here, without a token: its policy number, the
contract's status now and its term. \`valid\` is true while the contract is in force. Nothing about the
insured or the device is answered. A code that names no certificate → 404 \`not_found\` (codes carry
160 random bits: they cannot be guessed).`,
        security: [],
        params: CertificateCodeParams,
        response: { 200: CertificateVerification, ...errorResponses(404) },
      },
    },
    async (request) => {
      const answer = await verifyCertificate(db, request.params.code, {
        clock,
        sandboxClocks: config.env === 'test',
        timeZone: config.timeZone,
      })
      if (!answer) throw new NotFoundError('Certificate')
      return answer
    },
  )
}
