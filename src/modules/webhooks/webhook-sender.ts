import http from 'node:http'
import https from 'node:https'
import { Webhook } from 'standardwebhooks'

// One delivery attempt over HTTP (Standard Webhooks 1.0): POST, signed with every secret that
// signs now, bounded in time and in what is read back. Redirects are not followed: Node's client
// never follows them, and a 3xx is a failure like any non-2xx.

/** A 2xx within this long is success; the attempt ends then, whatever is still unread. */
export const ATTEMPT_TIMEOUT_MS = 10_000
/** At most this much of an answer's body is read, to keep the connection; past it, it is closed. */
const MAX_BODY_BYTES = 64 * 1024

export interface Attempt {
  url: string
  /** The event id: the `webhook-id`, the same on every attempt so that receivers de-duplicate. */
  id: string
  body: string
  secrets: string[]
  /** The attempt's instant, signed as `webhook-timestamp`. */
  timestamp: Date
  agents: { http: http.Agent; https: https.Agent }
  timeoutMs?: number
}

export interface AttemptResult {
  ok: boolean
  status: number | null
  /** Why it failed, for `last_error`: never the secret, the body or the receiver's answer. */
  error: string | null
}

export function signatureHeaders(id: string, timestamp: Date, body: string, secrets: string[]) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' '),
  }
}

export function sendWebhook(attempt: Attempt): Promise<AttemptResult> {
  const { url, id, body, secrets, timestamp, agents, timeoutMs = ATTEMPT_TIMEOUT_MS } = attempt
  return new Promise((resolve) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      resolve({ ok: false, status: null, error: 'invalid url' })
      return
    }
    const secure = parsed.protocol === 'https:'
    const signal = AbortSignal.timeout(timeoutMs)
    const request = (secure ? https : http).request(parsed, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Amparo-Webhooks/1.0',
        ...signatureHeaders(id, timestamp, body, secrets),
      },
    })
    request.once('response', (response) => {
      const status = response.statusCode ?? 0
      const ok = status >= 200 && status < 300
      resolve({ ok, status, error: ok ? null : failure(status) })
      // Drained in the background, bounded by size and by the same deadline (the signal).
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_BODY_BYTES) response.destroy()
      })
      response.on('error', () => {})
    })
    request.once('error', (error) => resolve({ ok: false, status: null, error: describe(error, timeoutMs) }))
    request.end(body)
  })
}

function failure(status: number): string {
  if (status >= 300 && status < 400) return `redirect (HTTP ${status}) not followed`
  return `HTTP ${status}`
}

function describe(error: Error & { code?: string }, timeoutMs: number): string {
  if (error.name === 'AbortError' || error.name === 'TimeoutError' || error.code === 'ABORT_ERR') {
    return `no answer within ${timeoutMs / 1000} s`
  }
  if (/is not allowed/.test(error.message))
    return 'refused: the host resolves to a private or reserved address'
  if (error.code) return `connection failed (${error.code})`
  return 'connection failed'
}
