import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { attachmentDisposition } from '../../http/content-disposition.js'
import { errorResponse, errorResponses } from '../../http/error-responses.js'
import { commit } from '../../plugins/unit-of-work.js'
import { acceptForms, readForm, uploadBodyLimit } from '../../plugins/upload.js'
import { MAX_DOCUMENT_BYTES } from './claim-document.rules.js'
import {
  ClaimDocument,
  ClaimDocumentBytes,
  ClaimDocumentFileParams,
  ClaimDocumentForm,
  ClaimDocumentParams,
} from './claim-document.schemas.js'
import {
  addClaimDocument,
  checkClaimExists,
  checkDocumentLimits,
  claimDocumentFile,
  receiveDocument,
  withStoredBytes,
} from './claim-document.service.js'

const tags = ['Claims']

export const claimDocumentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  await acceptForms(app)

  app.post(
    '/claims/:id/documents',
    {
      bodyLimit: uploadBodyLimit(MAX_DOCUMENT_BYTES),
      // The key's fingerprint is the kind and the file's hash, known once the file is read.
      config: { idempotencyAfterBody: true },
      schema: {
        tags,
        operationId: 'uploadClaimDocument',
        summary: 'Upload a document of a claim',
        description: `Sends one document of a claim as \`multipart/form-data\`: a \`kind\` field and one \`file\`
(\`curl -F kind=photo -F file=@tela.jpg\`). The file is at most 10 MiB (413 as soon as it goes past) and
must be JPEG, PNG, WebP, HEIC or PDF **as recognised from its bytes**, whatever its declared type or
name (415 otherwise: a script named \`photo.png\` is refused). Its filename is kept only as a sanitised
label. A claim holds at most 30 documents (the 31st → 422 under \`file\`), and a contract's claims at most
\`AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR\` (default 90) uploaded in the last 365 days, withdrawn claims'
included (one more → 422 \`validation_failed\` under \`file\`: withdrawing and opening a claim again does not
start the count anew). A partner uploads at most \`AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY\` MiB (default
2048) a day of the service's time zone: a file that would go past → 429 \`rate_limited\` with \`Retry-After\`
until that day ends. A form not all there within \`AMPARO_BODY_TIMEOUT_SECONDS\` (30 s) of the start of its
reading → 408 \`request_timeout\`, as a JSON body.

Required kinds: \`robbery\` and \`qualified_theft\` need \`police_report\`, \`imei_block\` and \`invoice\`;
\`accidental_damage\` and \`liquid_damage\` need \`photo\` and \`invoice\`. When none is missing any more,
the claim moves from \`documents_pending\` to \`under_review\` by itself (event \`claim.under_review\`).
Once the claim is decided or withdrawn → 422 \`invalid_state\`. Another partner's claim → 404.

With an \`Idempotency-Key\`, the same \`kind\` and the same bytes replay the first answer; another
kind or other bytes under the key → 422 \`idempotency_key_reused\`.`,
        params: ClaimDocumentParams,
        body: { content: { 'multipart/form-data': { schema: ClaimDocumentForm } } },
        response: {
          201: ClaimDocument,
          ...errorResponses(400, 401, 404, 408, 422, 'invalid_state', 'rate_limited'),
          413: errorResponse(413, 'The file is larger than 10 MiB: refused as soon as it goes past.'),
          415: errorResponse(
            415,
            'The file is not a JPEG, PNG, WebP, HEIC or PDF as recognised from its bytes, or the body is not multipart/form-data.',
          ),
        },
      },
    },
    async (request, reply) => {
      const { partnerId } = request.partner
      const { id } = request.params
      // Not this partner's: refused before its file is read.
      await checkClaimExists(db, partnerId, id)
      const form = await readForm(request, {
        fileField: 'file',
        maxFileBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: config.connections.bodyTimeoutSeconds * 1000,
      })
      try {
        const document = await receiveDocument(form.fields.kind, form.file)
        const print = { kind: document.kind, sha256: document.sha256 }
        if (await app.checkIdempotencyKey(request, reply, print)) return reply
        const moment = {
          now: request.clock.now().toISOString(),
          timeZone: config.timeZone,
          limits: config.claimDocumentLimits,
        }
        await checkDocumentLimits(db, partnerId, id, document.size, moment)
        const { bytes, ...received } = document
        return await withStoredBytes(db, bytes, (uploadId) =>
          commit(reply.code(201), (trx) =>
            addClaimDocument(trx, partnerId, id, { ...received, uploadId }, moment),
          ),
        )
      } finally {
        await form.discard()
      }
    },
  )

  app.get(
    '/claims/:id/documents/:documentId',
    {
      schema: {
        tags,
        operationId: 'downloadClaimDocument',
        summary: 'Download a document of a claim',
        description: `Answers the document's bytes with the type recognised at upload as \`Content-Type\`,
\`Content-Disposition: attachment\` (its label as the filename), \`X-Content-Type-Options: nosniff\` and
\`Cache-Control: private, no-store\`. Another partner's claim or document → 404.`,
        params: ClaimDocumentFileParams,
        response: { 200: ClaimDocumentBytes, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const { id, documentId } = request.params
      const file = await claimDocumentFile(db, request.partner.partnerId, id, documentId)
      return reply
        .type(file.content_type)
        .header('content-disposition', attachmentDisposition(file.filename))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .header('content-length', file.size)
        .send(file.bytes)
    },
  )
}
