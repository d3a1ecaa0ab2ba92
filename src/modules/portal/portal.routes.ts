import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { consoleError } from '../../console/console-schemas.js'
import { commit } from '../../plugins/unit-of-work.js'
import { acceptForms, readForm, uploadBodyLimit } from '../../plugins/upload.js'
import { CertificatePdf } from '../certificates/certificate.schemas.js'
import { annualPlanCertificate, subscriptionCertificate } from '../certificates/certificate.service.js'
import { ClaimBody } from '../claims/claim.schemas.js'
import { MAX_DOCUMENT_BYTES } from '../claims/claim-document.rules.js'
import { ClaimDocument, ClaimDocumentForm } from '../claims/claim-document.schemas.js'
import { receiveDocument, withStoredBytes } from '../claims/claim-document.service.js'
import { renderingContext } from '../events/event.service.js'
import {
  ContractParams,
  PortalClaim,
  PortalClaimParams,
  PortalClaims,
  PortalContracts,
  signedInErrors,
  Withdrawal,
} from './portal.schemas.js'
import {
  addInsuredDocument,
  checkInsuredDocumentLimits,
  claimContractOf,
  listInsuredClaims,
  openInsuredClaim,
  requireInsuredClaim,
  showInsuredClaim,
  uploadMoment,
} from './portal-claims.service.js'
import { listPortalContracts, partnerNow, requirePortalContract } from './portal-contracts.service.js'
import { withdrawAnnualPlan, withdrawSubscription } from './portal-withdrawal.service.js'

const notFound = consoleError('Not one of the insured’s contracts or claims.', 'not_found')
const refused = consoleError(
  'A rule refused it; `errors` names the field (as the partner API’s POST /claims).',
  'validation_failed',
  'invalid_state',
)

/** Minhas proteções, Abrir sinistro and Meus sinistros (README, Portal do segurado). */
export const portalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const moment = () => ({
    now: app.clock.now(),
    timeZone: config.timeZone,
    sandboxClocks: config.env === 'test',
  })
  await acceptForms(app)

  app.get(
    '/api/contracts',
    {
      schema: {
        tags: ['Contracts'],
        operationId: 'listContracts',
        summary: 'Minhas proteções: every contract of the insured’s CPF/CNPJ, under every partner',
        response: { 200: PortalContracts, ...signedInErrors },
      },
      config: { insured: true },
    },
    async (request) => listPortalContracts(db, request.insured, moment()),
  )

  app.get(
    '/api/contracts/:kind/:id/certificate',
    {
      schema: {
        tags: ['Contracts'],
        operationId: 'getCertificate',
        summary: 'The contract’s insurance certificate (PDF)',
        params: ContractParams,
        response: {
          200: CertificatePdf,
          404: notFound,
          422: consoleError('The contract is not in force.', 'invalid_state'),
          ...signedInErrors,
        },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const { kind, id } = request.params
      const contract = await requirePortalContract(db, request.insured, kind, id)
      const context = {
        now: partnerNow(app.clock.now(), contract.clock_offset_seconds, config.env === 'test'),
        timeZone: config.timeZone,
        base: renderingContext(config).base,
      }
      const pdf =
        kind === 'subscription'
          ? await subscriptionCertificate(db, contract.partner_id, id, context)
          : await annualPlanCertificate(db, contract.partner_id, id, context)
      return reply
        .type('application/pdf')
        .header('content-disposition', 'inline; filename="certificado.pdf"')
        .header('cache-control', 'private, no-store')
        .send(pdf)
    },
  )

  app.post(
    '/api/contracts/:kind/:id/withdraw',
    {
      schema: {
        tags: ['Contracts'],
        operationId: 'withdrawContract',
        summary: 'Arrependimento: the insured withdraws within 7 days of contracting',
        description: `A subscription is canceled with the reason \`insured_withdrawal\`; an annual plan's
cancellation is requested (its reason "Arrependimento do segurado (portal)") and confirmed at once, with its
refund. The partner's events and webhooks fire as for the partner's own cancellation. Past 7 days, or a contract already ended → 422
\`invalid_state\`; another document's contract → 404.`,
        params: ContractParams,
        response: {
          200: Withdrawal,
          404: notFound,
          409: consoleError('A card charge holds the contract: try again shortly.', 'payment_in_progress'),
          422: refused,
          ...signedInErrors,
        },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const { kind, id } = request.params
      const origin = { insured: request.insured, ip: request.ip }
      const found = await requirePortalContract(db, request.insured, kind, id)
      const contract = {
        ...found,
        now: partnerNow(app.clock.now(), found.clock_offset_seconds, config.env === 'test'),
      }
      const rendering = renderingContext(config)
      return commit(reply, (trx) =>
        kind === 'subscription'
          ? withdrawSubscription(trx, origin, contract, rendering)
          : withdrawAnnualPlan(trx, origin, contract, rendering),
      )
    },
  )

  app.post(
    '/api/claims',
    {
      schema: {
        tags: ['Claims'],
        operationId: 'openClaim',
        summary: 'Abrir sinistro on one of the insured’s contracts',
        description: `The partner API's \`POST /claims\` rules and fields; the claim is the partner's (its events
and webhooks fire) with \`opened_by: insured\`. Another document's contract → 404.`,
        body: ClaimBody,
        response: { 201: PortalClaim, 404: notFound, 422: refused, ...signedInErrors },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const origin = { insured: request.insured, ip: request.ip }
      const contract = await claimContractOf(db, origin, request.body, moment())
      return commit(reply.code(201), async (trx) => ({
        ...(await openInsuredClaim(trx, origin, contract, request.body, config.timeZone)),
        partner: { name: contract.partner_name },
      }))
    },
  )

  app.get(
    '/api/claims',
    {
      schema: {
        tags: ['Claims'],
        operationId: 'listClaims',
        summary: 'Meus sinistros: the claims on the insured’s contracts, newest first',
        response: { 200: PortalClaims, ...signedInErrors },
      },
      config: { insured: true },
    },
    async (request) => listInsuredClaims(db, request.insured, config.timeZone),
  )

  app.get(
    '/api/claims/:id',
    {
      schema: {
        tags: ['Claims'],
        operationId: 'getClaim',
        summary: 'One of the insured’s claims',
        params: PortalClaimParams,
        response: { 200: PortalClaim, 404: notFound, ...signedInErrors },
      },
      config: { insured: true },
    },
    async (request) => showInsuredClaim(db, request.insured, request.params.id, config.timeZone),
  )

  app.post(
    '/api/claims/:id/documents',
    {
      bodyLimit: uploadBodyLimit(MAX_DOCUMENT_BYTES),
      schema: {
        tags: ['Claims'],
        operationId: 'uploadClaimDocument',
        summary: 'Send a document of one of the insured’s claims',
        description: `As the partner API's \`POST /claims/{id}/documents\`: one \`file\` and its \`kind\`, at most
10 MiB (413), JPEG, PNG, WebP, HEIC or PDF by its bytes (415), 30 a claim.`,
        params: PortalClaimParams,
        body: { content: { 'multipart/form-data': { schema: ClaimDocumentForm } } },
        response: {
          201: ClaimDocument,
          404: notFound,
          408: consoleError('The form did not arrive in time.', 'request_timeout'),
          413: consoleError('The file is larger than 10 MiB.', 'payload_too_large'),
          415: consoleError('Not a JPEG, PNG, WebP, HEIC or PDF.', 'unsupported_media_type'),
          422: refused,
          429: consoleError('The partner’s documents of the day are at their quota.', 'rate_limited'),
          ...signedInErrors,
        },
      },
      config: { insured: true },
    },
    async (request, reply) => {
      const origin = { insured: request.insured, ip: request.ip }
      const claim = await requireInsuredClaim(db, request.insured, request.params.id)
      const form = await readForm(request, {
        fileField: 'file',
        maxFileBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: config.connections.bodyTimeoutSeconds * 1000,
      })
      try {
        const document = await receiveDocument(form.fields.kind, form.file)
        const when = uploadMoment(claim, moment(), config.claimDocumentLimits)
        await checkInsuredDocumentLimits(db, claim, document.size, when)
        const { bytes, ...received } = document
        return await withStoredBytes(db, bytes, (uploadId) =>
          commit(reply.code(201), (trx) =>
            addInsuredDocument(trx, origin, claim, { ...received, uploadId }, when),
          ),
        )
      } finally {
        await form.discard()
      }
    },
  )
}
