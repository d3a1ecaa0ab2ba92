import { createHash, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, ValidationError } from '../shared/errors.js'
import { bodyTimedOut, sizeLabel } from './http.js'

// multipart/form-data uploads (README, Claims: documents): read as a stream, the limits enforced
// while reading, the file's bytes written as they arrive to a private temporary file with their
// SHA-256, never held whole in memory (docs/decisions.md, Claims: document storage).

/** A form's one file, as received: on disk until the form is discarded. */
export interface ReceivedFile {
  /** As the client named it: a label to sanitise, never a path to use. */
  filename: string
  /** Where its bytes are (a temporary file of this process, removed by `discard`). */
  path: string
  size: number
  /** Hex. */
  sha256: string
  /**
   * Its bytes, in order, in pieces of `size` bytes (the last one shorter), all read into one buffer:
   * a piece is valid until the next one is asked for.
   */
  chunks(size: number): AsyncIterable<Buffer>
}

export interface ReceivedForm {
  /** Text fields by name (the last value when one is sent twice). */
  fields: Record<string, string>
  file: ReceivedFile | null
  /** Removes the file's temporary copy; called once the request is done with it. */
  discard(): Promise<void>
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

interface FormLimits {
  fileField: string
  maxFileBytes: number
  /** The whole form must arrive within this of the start of its reading, as a JSON body (408). */
  timeoutMs: number
}

/**
 * Reads a multipart form whose one file is `fileField`, of at most `maxFileBytes` (413 as soon as
 * it goes past, or when the declared length already does). Not a form → 415; a second file → 422
 * under `fileField`; a form that ends early or is malformed → 400; a form not all there within
 * `timeoutMs` → 408, what remains left unread (the connection is then closed).
 */
export async function readForm(request: FastifyRequest, limits: FormLimits): Promise<ReceivedForm> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'The request body must be sent as multipart/form-data.')
  }
  const tooLarge = () =>
    new AppError('payload_too_large', `The file must not be larger than ${sizeLabel(limits.maxFileBytes)}.`)
  if (Number(request.headers['content-length']) > uploadBodyLimit(limits.maxFileBytes)) throw tooLarge()
  const reading = readParts(request, limits, tooLarge)
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(bodyTimedOut(limits.timeoutMs)), limits.timeoutMs)
  })
  try {
    return await Promise.race([reading, deadline])
  } catch (error) {
    // Past the deadline the reading goes on until the connection closes: its file is removed then,
    // or at once should the form still complete.
    reading.then((form) => form.discard()).catch(() => {})
    throw error
  } finally {
    clearTimeout(timer)
  }
}

async function readParts(
  request: FastifyRequest,
  { fileField, maxFileBytes }: FormLimits,
  tooLarge: () => AppError,
): Promise<ReceivedForm> {
  const fields: Record<string, string> = {}
  let file: ReceivedFile | null = null
  let spooled: string | null = null
  const discard = async () => {
    if (spooled !== null) await rm(spooled, { force: true })
  }
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
      spooled = join(tmpdir(), `amparo-upload-${randomUUID()}`)
      const { size, sha256 } = await spool(part.file, spooled)
      if (part.file.truncated) throw tooLarge()
      file = {
        filename: part.filename,
        path: spooled,
        size,
        sha256,
        chunks: (n) => fileChunks(spooled as string, n),
      }
    }
  } catch (error) {
    await discard()
    // Why an upload was not read (a client gone, a cut body); the message only, never the bytes.
    request.log.debug({ reason: (error as Error).message }, 'multipart form not read')
    throw asClientError(error)
  }
  return { fields, file, discard }
}

/** Writes `source` to a new file at `path` (readable by this user only), hashing it on the way. */
async function spool(source: AsyncIterable<Buffer>, path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 })
  let size = 0
  try {
    for await (const piece of source) {
      hash.update(piece)
      size += piece.length
      if (!out.write(piece)) await once(out, 'drain')
    }
    out.end()
    await once(out, 'finish')
  } finally {
    if (!out.closed) out.destroy()
  }
  return { size, sha256: hash.digest('hex') }
}

/**
 * The file's bytes in pieces of `size` bytes, read into one buffer: a piece is valid until the next
 * is asked for (the file is written to the database piece by piece, so an upload adds one piece's
 * memory, not one buffer per piece waiting for the collector).
 */
async function* fileChunks(path: string, size: number): AsyncIterable<Buffer> {
  const handle = await open(path, 'r')
  const piece = Buffer.allocUnsafeSlow(size)
  try {
    for (;;) {
      let filled = 0
      while (filled < size) {
        const { bytesRead } = await handle.read(piece, filled, size - filled, null)
        if (bytesRead === 0) break
        filled += bytesRead
      }
      if (filled > 0) yield filled === size ? piece : piece.subarray(0, filled)
      if (filled < size) return
    }
  } finally {
    await handle.close()
  }
}
/** What reading a form can fail with is the client's doing: the parser's limits, a cut or malformed body. */
function asClientError(error: unknown): unknown {
  if (error instanceof AppError) return error
  const status = (error as { statusCode?: number }).statusCode
  if (status === 413) return new AppError('payload_too_large', 'The form has too many parts or fields.')
  return new AppError('bad_request', 'The multipart body is malformed or ended before it was complete.')
}
