import type { components } from './schema.js'

/** The codes the service documents (each operation's error responses in the OpenAPI document); branch on them, never on `message`. */
export type AmparoErrorCode =
  | components['schemas']['Error']['code']
  | components['schemas']['ValidationError']['code']

interface ErrorBody {
  code?: string
  message?: string
  errors?: Record<string, string[]>
  decline_code?: string
  request_id?: string
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

/**
 * Any 4xx or 5xx answer, after the client's own retries and re-login. A body that is not the
 * service's (a proxy's HTML page) still gives `status`, and `code` `http_<status>`. Printed (an
 * uncaught error, `console.log`, `String(error)`) it is one line,
 * `AmparoError 422 validation_failed: … (request_id …)`, followed by its stack.
 */
export class AmparoError extends Error {
  override readonly name: string = 'AmparoError'
  /** The HTTP status; 0 when no answer came (`AmparoConnectionError`). */
  readonly status: number
  readonly code: AmparoErrorCode | `http_${number}` | 'connection_failed'
  /** Messages keyed by the dot path of each offending input (422); empty otherwise. */
  readonly errors: Record<string, string[]>
  /** Why the card was declined (402): `insufficient_funds`, `expired_card`, … */
  readonly declineCode: string | undefined
  /** The response's `X-Request-Id`: quote it to support. */
  readonly requestId: string | undefined
  /** The response, its body already read; undefined when no answer came (`AmparoConnectionError`). */
  declare readonly response: Response | undefined

  constructor(response: Response | undefined, body: ErrorBody, options?: ErrorOptions) {
    super(body.message ?? `HTTP ${response?.status}`, options)
    this.status = response?.status ?? 0
    this.code = (body.code as AmparoError['code'] | undefined) ?? `http_${this.status}`
    this.errors = body.errors ?? {}
    this.declineCode = body.decline_code
    this.requestId = body.request_id ?? response?.headers.get('x-request-id') ?? undefined
    // Not enumerable: printing the error must not dump the Response's internals.
    Object.defineProperty(this, 'response', { value: response, enumerable: false })
  }

  /** `AmparoError 422 validation_failed: The document is invalid. (request_id b5d1…)` */
  override toString(): string {
    const status = this.status === 0 ? '' : ` ${this.status}`
    const requestId = this.requestId === undefined ? '' : ` (request_id ${this.requestId})`
    return `${this.name}${status} ${this.code}: ${this.message}${requestId}`
  }

  /** What Node prints (an uncaught error, `console.log`): the one line, then where it was thrown. */
  [INSPECT](): string {
    const frames = (this.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
    return [this.toString(), ...frames].join('\n')
  }

  /** Reads the failed response's body (JSON when it is one) into an error. */
  static async from(response: Response): Promise<AmparoError> {
    const text = await response.text().catch(() => '')
    let body: ErrorBody = {}
    try {
      const parsed: unknown = JSON.parse(text)
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as ErrorBody
    } catch {
      // Not JSON (a proxy's page): status and headers are all there is.
    }
    return new AmparoError(response, body)
  }
}

/**
 * No answer came: the service could not be reached (refused, reset, DNS, TLS). `status` is 0,
 * `code` `connection_failed`, `cause` the runtime's own error. A GET, or a write carrying an
 * `Idempotency-Key` (every POST, PUT and PATCH the client sends), was retried first. The message is
 * the client's own, in the call's `Accept-Language` (Portuguese or English) like the service's.
 */
export class AmparoConnectionError extends AmparoError {
  override readonly name: string = 'AmparoConnectionError'
  declare readonly status: 0
  declare readonly code: 'connection_failed'

  constructor(method: string, url: string, cause: unknown, language?: string | null) {
    const failed = prefersPortuguese(language) ? 'sem resposta' : 'failed'
    super(
      undefined,
      { code: 'connection_failed', message: `${method} ${url} ${failed}: ${reason(cause)}` },
      { cause },
    )
  }
}

/**
 * Whether an `Accept-Language` asks for Portuguese before English, as the service reads it: the
 * highest-weighted of `pt…`, `en…` and `*` (English) wins, the first listed on a tie.
 */
export function prefersPortuguese(header: string | null | undefined): boolean {
  let best: { pt: boolean; q: number } | undefined
  for (const part of (header ?? '').split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';')
    const primary = range.trim().split('-')[0]
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const q = weight === undefined ? 1 : Number(weight.slice(2))
    if (!Number.isFinite(q) || q <= 0) continue
    if (primary !== 'pt' && primary !== 'en' && primary !== '*') continue
    if (best === undefined || q > best.q) best = { pt: primary === 'pt', q }
  }
  return best?.pt ?? false
}

/** The innermost reason Node's fetch gives (`ECONNREFUSED 127.0.0.1:3000`), not its bare `fetch failed`. */
function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause
  if (cause?.message) return cause.message
  if (cause?.code) return cause.code
  return error instanceof Error ? error.message : String(error)
}
