/** Field errors keyed by dot path (`address.zip_code`), Laravel style. */
export type FieldErrors = Record<string, string[]>

/** Every error a partner can cause; the error handler renders them (CONTRACT §2). */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message)
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super(404, `${what} not found.`)
  }
}

export class UnauthenticatedError extends AppError {
  constructor() {
    super(401, 'Unauthenticated.')
  }
}

/** The service cannot answer for a moment (database unreachable); the client retries later. */
export class ServiceUnavailableError extends AppError {
  readonly retryAfterSeconds: number = 5

  constructor(message = 'Service temporarily unavailable. Retry shortly.') {
    super(503, message)
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldErrors) {
    super(422, summarize(errors), errors)
  }

  static field(key: string, message: string): ValidationError {
    return new ValidationError({ [key]: [message] })
  }
}

/** A business rule refused the call because of the resource's state (`errors.status`). */
export class StateError extends ValidationError {
  constructor(message: string) {
    super({ status: [message] })
  }
}

/** The call is not available in the partner's payment gateway mode (`errors.gateway`). */
export class GatewayModeError extends ValidationError {
  constructor(message: string) {
    super({ gateway: [message] })
  }
}

/** Laravel's message: the first error, plus how many more there are. */
export function summarize(errors: FieldErrors): string {
  const all = Object.values(errors).flat()
  const [first = 'The given data was invalid.'] = all
  const more = all.length - 1
  return more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first
}
