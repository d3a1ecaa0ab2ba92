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
  const timer = setTimeout(
    () =>
      finish(
        new AppError('request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s.`),
      ),
    timeoutMs,
  )
  payload.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort)
}

const EMPTY = Buffer.alloc(0)

export function sizeLabel(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.ceil(bytes / 1024)} KiB`
}
