import { AppError, ServiceUnavailableError } from '../../shared/errors.js'

// The errors of a card payment, in one file every gateway adapter and the charge flow import.

/** The most a 503 asks the partner to wait: its retry goes to the gateway again at once. */
export const GATEWAY_RETRY_AFTER_SECONDS = 5

/**
 * The gateway could not answer (timeout, connection lost, its own fault, its rate limit): not a
 * decline. Whether it charged is unknown, so the retry sends the same idempotency key, and the
 * gateway answers it from the first call if there was one.
 */
export class GatewayUnavailableError extends ServiceUnavailableError {
  override readonly retryAfterSeconds = GATEWAY_RETRY_AFTER_SECONDS

  /** `gateway`: what the log needs to find the call at the gateway (Stripe's request id…). */
  constructor(readonly gateway: Record<string, unknown> = {}) {
    super('The payment gateway did not answer; nothing was recorded. Retry after Retry-After seconds.')
  }
}

/**
 * The gateway refused our request as malformed, or left it in a state the call does not expect: a
 * bug or a misconfiguration, never the partner's fault nor a decline (502 `gateway_error`).
 * `detail` and `gateway` (Stripe's request id…) are for the log; the partner reads only that
 * nothing was charged.
 */
export class GatewayRefusedError extends AppError {
  constructor(
    readonly detail: string,
    readonly gateway: Record<string, unknown> = {},
  ) {
    super(
      'gateway_error',
      'The payment gateway refused the request; nothing was charged. Quote request_id to support.',
    )
    this.name = 'GatewayRefusedError'
  }
}

/**
 * Another charge holds the installment or plan: 409, try again once it has answered (a gateway call
 * settles within 30 s; most within a second or two). `retryAfterSeconds`: the seconds its claim
 * has left (inProgressUntil), or longer for a charge whose outcome the worker has yet to record
 * (see UNRECORDED_RETRY_AFTER_SECONDS).
 */
export class PaymentInProgressError extends AppError {
  override readonly retryAfterSeconds: number

  constructor(
    message = 'A payment of this item is in progress: try again once it has answered.',
    retryAfterSeconds = 2,
  ) {
    super('payment_in_progress', message)
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/**
 * 409 while a claim holds the item until `lockedUntil`: `Retry-After` is the seconds it has left
 * (at least 1), the real wait, after which the item is free or its charge recorded.
 */
export function inProgressUntil(lockedUntil: string | null, now: Date): PaymentInProgressError {
  const left = lockedUntil === null ? 0 : Date.parse(lockedUntil) - now.getTime()
  return new PaymentInProgressError(undefined, Math.max(1, Math.ceil(left / 1000)))
}

/**
 * A first charge the gateway may have approved but the database never recorded is recorded by the
 * worker once its call is surely over (35 s after it was sent, then within its next run): what a
 * cancellation waiting for it asks the partner to wait between tries.
 */
export const UNRECORDED_RETRY_AFTER_SECONDS = 10
