import type { Readable } from 'node:stream'
import { AppError } from '../shared/errors.js'

/**
 * Reads a body of at most `limit` bytes (else `tooLarge()`) that must arrive within `timeoutMs`
 * of the start of its reading, else 408: without it, a body that never finishes held its
 * connection forever. Past either, what remains is left unread.
 */
export function readBody(
  payload: Readable,
  { limit, tooLarge, timeoutMs }: { limit: number; tooLarge: () => Error; timeoutMs: number },
  done: (error: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = []
  let received = 0
  const finish = (error: Error | null) => {
    clearTimeout(timer)
    payload.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort)
    done(error, error ? EMPTY : Buffer.concat(chunks, received))
  }
  const onData = (chunk: Buffer) => {
    received += chunk.length
    if (received > limit) return finish(tooLarge())
    chunks.push(chunk)
  }
  const onEnd = () => finish(null)
  // The client went away mid-body: a client error (as Fastify's own reader has it), not a fault to
  // log, though nobody is left to read the answer.
  const onAbort = () => finish(new AppError('bad_request', 'The request body ended before it was complete.'))
  const timer = setTimeout(() => finish(bodyTimedOut(timeoutMs)), timeoutMs)
  payload.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort)
}

const EMPTY = Buffer.alloc(0)

/** 408: a body, JSON or a form (upload.ts), not all there `timeoutMs` after its reading began. */
export const bodyTimedOut = (timeoutMs: number) =>
  new AppError('request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s.`)

/** How deep a JSON body may nest: no request of the API goes past 4 levels. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text opens more than `max` arrays or objects inside one another, in one pass over
 * its bytes (brackets inside strings skipped). Parsing and then validating 1 MiB of `[[[…` cost
 * about a second of CPU; this costs about a millisecond, and nothing for a body of usual size.
 */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  // Nesting past `max` takes more than `max` bytes.
  if (body.length <= max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

export function sizeLabel(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.ceil(bytes / 1024)} KiB`
}
