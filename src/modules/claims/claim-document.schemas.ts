import type { Readable } from 'node:stream'
import { type Static, Type } from 'typebox'
import { DOCUMENTED_ONLY, Id, named, Timestamp } from '../../http/http-schemas.js'
import { DOCUMENT_KINDS } from './claim.rules.js'
import { ACCEPTED_CONTENT_TYPES, MAX_DOCUMENTS_PER_CLAIM } from './claim-document.rules.js'

export const ClaimDocumentParams = Type.Object({ id: Id('Claim id, as returned when opening it.', 1) })
export type ClaimDocumentParams = Static<typeof ClaimDocumentParams>

export const ClaimDocumentFileParams = Type.Object({
  id: Id('Claim id, as returned when opening it.', 1),
  documentId: Id('Document id, as returned by the upload.', 1),
})
export type ClaimDocumentFileParams = Static<typeof ClaimDocumentFileParams>

const DocumentKind = Type.Enum(DOCUMENT_KINDS, {
  description:
    '`police_report` (Boletim de Ocorrência), `imei_block` (the carrier’s IMEI-blocking protocol), `invoice` (nota fiscal), `photo`, `repair_quote`, `id_document` or `other`.',
})

const CONTENT_TYPES = ACCEPTED_CONTENT_TYPES.map((type) => `\`${type}\``).join(', ')

/** One document of a claim (the claim's `documents` list shows the same object). */
export const ClaimDocument = named(
  'ClaimDocument',
  Type.Object(
    {
      id: Type.Integer(),
      kind: DocumentKind,
      filename: Type.String({ description: 'The sent filename as a label only: sanitised, never a path.' }),
      content_type: Type.String({ description: `As recognised from the bytes: ${CONTENT_TYPES}.` }),
      size: Type.Integer({ description: 'Bytes.' }),
      sha256: Type.String({ description: 'SHA-256 of the bytes, in hex.', pattern: '^[0-9a-f]{64}$' }),
      uploaded_at: Timestamp('When it was received.'),
    },
    {
      examples: [
        {
          id: 1,
          kind: 'photo',
          filename: 'tela-quebrada.jpg',
          content_type: 'image/jpeg',
          size: 182_044,
          sha256: '9f2c7c3b1e0a6d4f8b5a2e7c1d3f6a9b0c4e8d2f7a1b5c9e3d6f0a4b8c2e7d1f',
          uploaded_at: '2026-11-21 12:04:05',
        },
      ],
    },
  ),
)

/**
 * The upload form, for the document only: the handler reads the stream itself (plugins/upload.ts)
 * and checks each field, so validation sees an empty object.
 */
export const ClaimDocumentForm = Type.Object(
  {},
  {
    [DOCUMENTED_ONLY]: {
      required: ['kind', 'file'],
      properties: {
        kind: DocumentKind,
        file: {
          type: 'string',
          format: 'binary',
          contentMediaType: 'application/octet-stream',
          description: `One file of at most 10 MiB: ${CONTENT_TYPES} as recognised from its bytes, whatever its declared type or name (else 415). Its filename is kept as a label.`,
        },
      },
      // The documents a theft claim requires, then a photo: sent in this order, the claim of the
      // `openClaim` example moves to `under_review` at the third.
      examples: [
        { kind: 'police_report', file: '(the bytes of boletim-ocorrencia.pdf)' },
        { kind: 'imei_block', file: '(the bytes of protocolo-bloqueio-imei.pdf)' },
        { kind: 'invoice', file: '(the bytes of nota-fiscal.pdf)' },
        { kind: 'photo', file: '(the bytes of tela-quebrada.jpg)' },
      ],
    },
    description: `A claim holds at most ${MAX_DOCUMENTS_PER_CLAIM} documents.`,
  },
)

/** The download's answer: the bytes, of the type the upload recognised. */
export const ClaimDocumentBytes = Type.Unsafe<Readable>({
  description: 'The document’s bytes.',
  content: Object.fromEntries(
    ACCEPTED_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
  ),
  headers: {
    'Content-Disposition': {
      type: 'string',
      description:
        '`attachment`, with the document’s label as `filename` (ASCII) and `filename*` (UTF-8, RFC 8187).',
    },
    'X-Content-Type-Options': { type: 'string', description: '`nosniff`.' },
    'Cache-Control': { type: 'string', description: '`private, no-store`.' },
  },
})
