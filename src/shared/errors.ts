/** Field errors keyed by dot path (`address.zip_code`), Laravel style. */
export type FieldErrors = Record<string, string[]>

/**
 * The stable machine-readable error codes, by status (README, Using the API: errors): partners script against them,
 * so a code is never renamed nor moved to another status. The OpenAPI document's enums come from
 * here. 417 is not in the contract's table (the service answers it only to an `Expect` header it
 * does not support; docs/decisions.md).
 */
export const ERROR_CODES = {
  400: ['invalid_json', 'bad_request'],
  401: ['unauthenticated'],
  402: ['card_declined'],
  404: ['not_found'],
  408: ['request_timeout'],
  409: ['idempotency_key_in_flight', 'payment_in_progress', 'clock_advancing'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  417: ['expectation_failed'],
  422: ['validation_failed', 'invalid_state', 'wrong_gateway', 'idempotency_key_reused'],
  429: ['rate_limited'],
  431: ['headers_too_large'],
  500: ['server_error'],
  502: ['gateway_error'],
  503: ['service_unavailable'],
} as const

export type ErrorStatus = keyof typeof ERROR_CODES
export type ErrorCode = (typeof ERROR_CODES)[ErrorStatus][number]
type ValidationCode = (typeof ERROR_CODES)[422][number]

/**
 * The operator console's own codes (README, Operator console): answered on the console's listener
 * only, never by the partner API, so they stay out of the partners' table and document.
 */
export const CONSOLE_ERROR_CODES = {
  401: ['invalid_credentials'],
  // A one-time password not yet replaced opens nothing but its own change.
  403: ['forbidden', 'origin_refused', 'password_change_required'],
  // A claim decided by another operator since the screen showed it.
  409: ['decision_conflict'],
} as const
export type ConsoleErrorStatus = keyof typeof CONSOLE_ERROR_CODES
export type ConsoleErrorCode = (typeof CONSOLE_ERROR_CODES)[ConsoleErrorStatus][number]

const STATUS_OF = new Map<ErrorCode | ConsoleErrorCode, ErrorStatus | ConsoleErrorStatus>(
  [ERROR_CODES, CONSOLE_ERROR_CODES].flatMap((table) =>
    Object.entries(table).flatMap(([status, codes]) =>
      codes.map((code: ErrorCode | ConsoleErrorCode) => [code, Number(status) as ErrorStatus] as const),
    ),
  ),
)

/** The status a code is answered with. */
export function statusOf(code: ErrorCode): ErrorStatus
export function statusOf(code: ErrorCode | ConsoleErrorCode): ErrorStatus | ConsoleErrorStatus
export function statusOf(code: ErrorCode | ConsoleErrorCode): ErrorStatus | ConsoleErrorStatus {
  return STATUS_OF.get(code) as ErrorStatus
}

/** Every error a partner can cause; the error handler renders them (README, Using the API: errors). */
export class AppError extends Error {
  readonly statusCode: ErrorStatus | ConsoleErrorStatus
  /** Sent as `Retry-After`: when trying again can succeed (a 503, a 429, a payment in progress). */
  readonly retryAfterSeconds?: number

  constructor(
    readonly code: ErrorCode | ConsoleErrorCode,
    message: string,
    readonly errors?: FieldErrors,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message)
    this.statusCode = statusOf(code)
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super('not_found', `${what} not found.`)
  }
}

export class UnauthenticatedError extends AppError {
  constructor() {
    super('unauthenticated', 'Unauthenticated.')
  }
}

/** The service cannot answer for a moment (database unreachable); the client retries later. */
export class ServiceUnavailableError extends AppError {
  override readonly retryAfterSeconds: number = 5

  constructor(message = 'Service temporarily unavailable. Retry shortly.') {
    super('service_unavailable', message)
  }
}

/** 422 with field errors: `validation_failed` unless a narrower code says which rule refused. */
export class ValidationError extends AppError {
  constructor(errors: FieldErrors, code: ValidationCode = 'validation_failed') {
    super(code, summarize(errors), errors)
  }

  static field(key: string, message: string): ValidationError {
    return new ValidationError({ [key]: [message] })
  }
}

/** A business rule refused the call because of the resource's state (`errors.status`). */
export class StateError extends ValidationError {
  constructor(message: string) {
    super({ status: [message] }, 'invalid_state')
  }
}

/** The call is not available in the partner's payment gateway mode (`errors.gateway`). */
export class GatewayModeError extends ValidationError {
  constructor(message: string) {
    super({ gateway: [message] }, 'wrong_gateway')
  }
}

/** Laravel's message: the first error, plus how many more there are. */
export function summarize(errors: FieldErrors): string {
  const all = Object.values(errors).flat()
  const [first = 'The given data was invalid.'] = all
  const more = all.length - 1
  return more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first
}
