import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { consoleError, csvAnswer } from '../../console/console-schemas.js'
import type { Trx } from '../../db/database.js'
import { attachmentDisposition } from '../../http/content-disposition.js'
import { commit } from '../../plugins/unit-of-work.js'
import { renderingContext } from '../events/event.service.js'
import {
  ClaimExportQuery,
  ClaimQueuePage,
  ClaimQueueQuery,
  DeskClaim,
  DeskClaimParams,
  DeskDocumentParams,
  DocumentBytes,
} from './claims-desk.schemas.js'
import {
  claimQueuePage,
  type Decision,
  decideOnDesk,
  deskClaim,
  deskDocument,
} from './claims-desk.service.js'
import { ApproveBody, DenyBody, RequestDocumentsBody, SettleBody } from './claims-desk-decision.schemas.js'
import { CLAIMS_CSV_HEADER, claimsCsv } from './claims-export.service.js'
import { consoleAnswers } from './console.schemas.js'
import { actor } from './console-actor.js'

const tags = ['Claims desk']

/**
 * A partner's file is data, never a page: opened directly it downloads, and were it rendered, it
 * would be sandboxed (no script, no plugin such as the browser's PDF viewer) and unframable.
 */
const DOCUMENT_POLICY =
  "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'"

const DECISION_ANSWERS = {
  ...consoleAnswers(true, 404, 422),
  409: consoleError(
    'Another operator decided the claim first (or its status no longer allows this).',
    'decision_conflict',
  ),
}

export const claimsDeskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app

  app.get(
    '/api/claims',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'listDeskClaims',
        summary: 'The claims queue',
        description:
          'Every partner’s claims filtered by status (or `open`), type, partner, fraud signal and assignee (`me`: the signed-in operator’s, `none`: nobody’s). Open claims (`open`, or one open status) come by deadline, the nearest first, those awaiting documents (deadline suspended) after them; a list with closed claims comes oldest first.',
        querystring: ClaimQueueQuery,
        response: { 200: ClaimQueuePage, ...consoleAnswers(false, 422) },
      },
    },
    async (request) => {
      const { page, per_page, ...filter } = request.query
      const moment = { me: request.operator.id, now: clock.now().toISOString(), timeZone: config.timeZone }
      return claimQueuePage(db, filter, { page, perPage: per_page }, moment)
    },
  )

  app.get(
    '/api/claims.csv',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'exportDeskClaims',
        summary: 'The claims queue as CSV (same filters, every page)',
        description:
          'Every claim the queue lists under the same filters (`assignee=me`: the signed-in operator’s), oldest first, for a spreadsheet: contracts by policy number and the partner’s id, statuses and perils in words.',
        querystring: ClaimExportQuery,
        response: {
          200: csvAnswer('amparo-sinistros.csv', CLAIMS_CSV_HEADER),
          ...consoleAnswers(false, 422),
        },
      },
    },
    async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="amparo-sinistros.csv"')
        .send(Readable.from(claimsCsv(db, request.query, request.operator.id, config.timeZone))),
  )

  app.get(
    '/api/claims/:id',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'getDeskClaim',
        summary: 'A claim’s page',
        description:
          'The claim with its contract, customer, device, the contract’s event timeline, documents (with the address of their bytes), fraud signals and the payable preview.',
        params: DeskClaimParams,
        response: { 200: DeskClaim, ...consoleAnswers(false, 404) },
      },
    },
    async (request) => deskClaim(db, request.params.id),
  )

  app.get(
    '/api/claims/:id/documents/:documentId',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'getDeskClaimDocument',
        summary: 'A claim document’s bytes',
        description:
          'The bytes as uploaded, with the type recognised then, as an attachment: `X-Content-Type-Options: nosniff`, a `sandbox` policy and no framing, so a browser never runs them as a page. The console shows an image in an `<img>` and draws a PDF with pdf.js (its script never runs).',
        params: DeskDocumentParams,
        response: { 200: DocumentBytes, ...consoleAnswers(false, 404) },
      },
    },
    async (request, reply) => {
      const file = await deskDocument(db, request.params.id, request.params.documentId)
      return reply
        .type(file.content_type)
        .header('content-disposition', attachmentDisposition(file.filename))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', DOCUMENT_POLICY)
        .header('x-frame-options', 'DENY')
        .header('cache-control', 'private, no-store')
        .header('content-length', file.size)
        .send(file.bytes)
    },
  )

  const decide = (request: FastifyRequest, id: number, decision: Decision) => {
    const moment = { now: clock.now().toISOString(), rendering: renderingContext(config) }
    return (trx: Trx) => decideOnDesk(trx, actor(request), id, decision, moment)
  }

  app.post(
    '/api/claims/:id/approve',
    {
      config: { role: 'adjuster' },
      schema: {
        tags,
        operationId: 'approveDeskClaim',
        summary: 'Approve a claim under review',
        description:
          'As `amparo claim approve`: the method and the approved amount (≤ LMI); payable = approved − franchise. Audited. A claim no longer under review (another operator decided it first) → 409 `decision_conflict`.',
        params: DeskClaimParams,
        body: ApproveBody,
        response: { 200: DeskClaim, ...DECISION_ANSWERS },
      },
    },
    async (request, reply) => {
      const { settlement_method, approved_amount_cents } = request.body
      const decision = {
        action: 'approve' as const,
        settlementMethod: settlement_method,
        approvedAmountCents: approved_amount_cents,
      }
      return commit(reply, decide(request, request.params.id, decision))
    },
  )

  app.post(
    '/api/claims/:id/deny',
    {
      config: { role: 'adjuster' },
      schema: {
        tags,
        operationId: 'denyDeskClaim',
        summary: 'Deny a claim',
        description:
          'As `amparo claim deny`: a reason code and the note the partner sees. Audited. A claim already decided or withdrawn → 409 `decision_conflict`.',
        params: DeskClaimParams,
        body: DenyBody,
        response: { 200: DeskClaim, ...DECISION_ANSWERS },
      },
    },
    async (request, reply) => {
      const decision = {
        action: 'deny' as const,
        reasonCode: request.body.reason_code,
        note: request.body.note,
      }
      return commit(reply, decide(request, request.params.id, decision))
    },
  )

  app.post(
    '/api/claims/:id/settle',
    {
      config: { role: 'adjuster' },
      schema: {
        tags,
        operationId: 'settleDeskClaim',
        summary: 'Settle an approved claim',
        description:
          'As `amparo claim settle`: the repair order or transfer id; a replacement or indemnity ends the contract. Audited. A claim not approved (or settled meanwhile) → 409 `decision_conflict`.',
        params: DeskClaimParams,
        body: SettleBody,
        response: { 200: DeskClaim, ...DECISION_ANSWERS },
      },
    },
    async (request, reply) =>
      commit(
        reply,
        decide(request, request.params.id, { action: 'settle', reference: request.body.reference }),
      ),
  )

  app.post(
    '/api/claims/:id/request-documents',
    {
      config: { role: 'adjuster' },
      schema: {
        tags,
        operationId: 'requestDeskClaimDocuments',
        summary: 'Ask for documents on a claim under review',
        description:
          'As `amparo claim request-documents`: the kinds and a message (10–500 characters) the partner sees in `documents_request`; the claim awaits them (`documents_pending`, event `claim.documents_requested`) and is under review again once each kind is uploaded. Audited. A claim no longer under review → 409 `decision_conflict`.',
        params: DeskClaimParams,
        body: RequestDocumentsBody,
        response: { 200: DeskClaim, ...DECISION_ANSWERS },
      },
    },
    async (request, reply) => {
      const { kinds, message } = request.body
      return commit(
        reply,
        decide(request, request.params.id, { action: 'request_documents', kinds, message }),
      )
    },
  )
}
