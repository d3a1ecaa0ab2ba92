import type { ErrorCode } from '../../src/shared/errors.js'

interface Answered {
  headers: Record<string, unknown>
}

/** The response's X-Request-Id, which every error body repeats as `request_id` (README, Using the API). */
export function requestIdOf(response: Answered): string {
  const id = response.headers['x-request-id']
  if (typeof id !== 'string' || id === '') throw new Error('the response has no X-Request-Id header')
  return id
}

/**
 * The whole error body a response must carry: `body` (its message, field errors…) with `code`
 * and the `request_id` of the response's X-Request-Id header. For `toEqual`.
 */
export function expectedError(response: Answered, code: ErrorCode, body: object) {
  return { code, ...body, request_id: requestIdOf(response) }
}

/** The exact text of a 401's body. */
export function unauthenticatedText(response: Answered): string {
  return JSON.stringify(expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }))
}
