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

/**
 * Any 4xx or 5xx answer, after the client's own retries and re-login. A body that is not the
 * service's (a proxy's HTML page) still gives `status`, and `code` `http_<status>`.
 */
export class AmparoError extends Error {
  override readonly name = 'AmparoError'
  readonly status: number
  readonly code: AmparoErrorCode | `http_${number}`
  /** Messages keyed by the dot path of each offending input (422); empty otherwise. */
  readonly errors: Record<string, string[]>
  /** Why the card was declined (402): `insufficient_funds`, `expired_card`, … */
  readonly declineCode: string | undefined
  /** The response's `X-Request-Id`: quote it to support. */
  readonly requestId: string | undefined
  /** The response, its body already read. */
  readonly response: Response

  constructor(response: Response, body: ErrorBody) {
    super(body.message ?? `HTTP ${response.status}`)
    this.status = response.status
    this.code = (body.code as AmparoErrorCode | undefined) ?? `http_${response.status}`
    this.errors = body.errors ?? {}
    this.declineCode = body.decline_code
    this.requestId = body.request_id ?? response.headers.get('x-request-id') ?? undefined
    this.response = response
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
