/**
 * Idempotency keys (README, Safe retries and limits): the first response to a POST/PUT with an `Idempotency-Key`,
 * kept 24 h per partner and key. `response_status` null means the first request is in flight.
 */
export interface IdempotencyKeysTable {
  partner_id: number
  key: string
  /** HMAC of method, path and body (plugins/idempotency.ts): another request under the same key is refused. */
  fingerprint: string
  response_status: number | null
  response_body: string | null
  created_at: string
  expires_at: string
}
