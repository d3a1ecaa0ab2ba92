import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { consoleError } from '../../console/console-schemas.js'
import type { Trx } from '../../db/database.js'
import { attachmentDisposition } from '../../http/content-disposition.js'
import { commit } from '../../plugins/unit-of-work.js'
import { renderingContext } from '../events/event.service.js'
import {
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
import { consoleAnswers } from './console.schemas.js'
import { actor } from './console-actor.js'

const tags = ['Claims desk']

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
          'Every partner’s claims, oldest first, filtered by status (or `open`), type, partner, fraud signal and assignee (`me`: the signed-in operator’s, `none`: nobody’s).',
        querystring: ClaimQueueQuery,
        response: { 200: ClaimQueuePage, ...consoleAnswers(false, 422) },
      },
    },
    async (request) => {
      const { page, per_page, ...filter } = request.query
      return claimQueuePage(db, filter, { page, perPage: per_page }, request.operator.id)
    },
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
          'Inline, with the type recognised at upload and `X-Content-Type-Options: nosniff`, framable by the console only. An image is served `sandbox`ed; a PDF is not, because Chromium’s PDF viewer does not run in a sandboxed document (its script runs in the viewer, never in the console’s origin).',
        params: DeskDocumentParams,
        response: { 200: DocumentBytes, ...consoleAnswers(false, 404) },
      },
    },
    async (request, reply) => {
      const file = await deskDocument(db, request.params.id, request.params.documentId)
      return reply
        .type(file.content_type)
        .header('content-disposition', attachmentDisposition(file.filename).replace(/^attachment/, 'inline'))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', documentPolicy(file.content_type))
        .header('x-frame-options', 'SAMEORIGIN')
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

/**
 * A document's policy: an image (or SVG) sandboxed, so it can never run script; a PDF only
 * framable by the console, since a sandboxed document cannot host the browser's PDF viewer.
 */
function documentPolicy(contentType: string): string {
  return contentType === 'application/pdf'
    ? "frame-ancestors 'self'"
    : "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'"
}
