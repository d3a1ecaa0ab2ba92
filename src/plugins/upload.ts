import { createHash } from 'node:crypto'
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, ValidationError } from '../shared/errors.js'
import { sizeLabel } from './body-reader.js'

// multipart/form-data uploads (README, Claims: documents): read as a stream, the limits enforced
// while reading, the file's bytes kept in memory with their SHA-256 (a document is at most 10 MiB).

/** A form's one file, as received. */
export interface ReceivedFile {
  /** As the client named it: a label to sanitise, never a path to use. */
  filename: string
  bytes: Buffer
  /** Hex. */
  sha256: string
}

export interface ReceivedForm {
  /** Text fields by name (the last value when one is sent twice). */
  fields: Record<string, string>
  file: ReceivedFile | null
}

/** Bytes a form's boundaries, part headers and small fields may add to its file. */
const FORM_OVERHEAD = 64 * 1024

/** The route option `bodyLimit` of a route taking a file of at most `maxFileBytes`. */
export const uploadBodyLimit = (maxFileBytes: number) => maxFileBytes + FORM_OVERHEAD

/**
 * Lets the routes of this (encapsulated) scope read multipart/form-data with `readForm`; the
 * other routes keep refusing it (415).
 */
export async function acceptForms(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, { throwFileSizeLimit: false })
}

/**
 * Reads a multipart form whose one file is `fileField`, of at most `maxFileBytes` (413 as soon as
 * it goes past, or when the declared length already does). Not a form → 415; a second file → 422
 * under `fileField`; a form that ends early or is malformed → 400.
 */
export async function readForm(
  request: FastifyRequest,
  { fileField, maxFileBytes }: { fileField: string; maxFileBytes: number },
): Promise<ReceivedForm> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'The request body must be sent as multipart/form-data.')
  }
  const tooLarge = () =>
    new AppError('payload_too_large', `The file must not be larger than ${sizeLabel(maxFileBytes)}.`)
  if (Number(request.headers['content-length']) > uploadBodyLimit(maxFileBytes)) throw tooLarge()
  const fields: Record<string, string> = {}
  let file: ReceivedFile | null = null
  try {
    const parts = request.parts({
      limits: { fileSize: maxFileBytes, files: 4, fields: 16, fieldSize: 1024, parts: 20, headerPairs: 50 },
    })
    for await (const part of parts) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value)
        continue
      }
      if (part.fieldname !== fileField || file !== null) {
        throw ValidationError.field(fileField, `Send one file, as the ${fileField} field.`)
      }
      const hash = createHash('sha256')
      const chunks: Buffer[] = []
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        hash.update(chunk)
        chunks.push(chunk)
      }
      if (part.file.truncated) throw tooLarge()
      file = { filename: part.filename, bytes: Buffer.concat(chunks), sha256: hash.digest('hex') }
    }
  } catch (error) {
    // Why an upload was not read (a client gone, a cut body); the message only, never the bytes.
    request.log.debug({ reason: (error as Error).message }, 'multipart form not read')
    throw asClientError(error)
  }
  return { fields, file }
}

/** What reading a form can fail with is the client's doing: the parser's limits, a cut or malformed body. */
function asClientError(error: unknown): unknown {
  if (error instanceof AppError) return error
  const status = (error as { statusCode?: number }).statusCode
  if (status === 413) return new AppError('payload_too_large', 'The form has too many parts or fields.')
  return new AppError('bad_request', 'The multipart body is malformed or ended before it was complete.')
}
