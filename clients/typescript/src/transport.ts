import { AmparoConnectionError, AmparoError } from './errors.js'

export interface TransportOptions {
  baseUrl: string
  clientId: string
  clientSecret: string
  fetch: typeof globalThis.fetch
  /** Retries of an answer 429 or 503, each after its `Retry-After`, or of a request no answer came to. */
  maxRetries: number
  /** Sent as `Accept-Language` unless the call sets its own (`pt-BR`: errors in Portuguese). */
  language?: string
}

/** Methods whose retry the service makes safe with an `Idempotency-Key` (the service's README, Safe retries and limits). */
const KEYED_METHODS = new Set(['POST', 'PUT', 'PATCH'])
const RETRIED_STATUSES = new Set([429, 503])
/** Methods that change nothing, so that sending them again is safe without a key. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** The wait when a 429 or 503 comes without a readable `Retry-After` (a proxy's). */
const DEFAULT_RETRY_AFTER_MS = 1000
/** The first wait after no answer came (refused, reset), doubled at each retry. */
const CONNECTION_RETRY_MS = 250

/**
 * The `fetch` the typed client sends through: it logs in (and again, once, when a token stops
 * working), gives every POST, PUT and PATCH an `Idempotency-Key` unless it has one, so that its
 * retries act at most once, retries 429 and 503 after `Retry-After` (and a request no answer
 * came to, when sending it again is safe), and turns any answer that is still 4xx or 5xx into an
 * `AmparoError`, a request still unanswered into an `AmparoConnectionError`.
 */
export function amparoFetch(options: TransportOptions): typeof globalThis.fetch {
  const loginUrl = `${options.baseUrl.replace(/\/+$/, '')}/auth/login`
  const session = new Session(options, loginUrl)

  return async (input, init) => {
    const original = new Request(input, init)
    const template = await replayable(original, options.language)
    const anonymous = template.url === loginUrl || template.headers.has('authorization')
    let token = anonymous ? undefined : await session.token()
    let response = await sendWithRetries(options, template, token)
    if (response.status === 401 && token !== undefined) {
      await response.body?.cancel()
      token = await session.renew(token)
      response = await sendWithRetries(options, template, token)
    }
    if (!response.ok) throw await AmparoError.from(response)
    return response
  }
}

/** The request's parts, its body read once so that every attempt can send it again. */
interface Template {
  url: string
  method: string
  headers: Headers
  body: ArrayBuffer | string | null
  signal: AbortSignal
  /** Sending it twice acts once: a GET, or a write with an `Idempotency-Key`. */
  idempotent: boolean
}

async function replayable(request: Request, language: string | undefined): Promise<Template> {
  const headers = new Headers(request.headers)
  if (language !== undefined && !headers.has('accept-language')) headers.set('accept-language', language)
  if (KEYED_METHODS.has(request.method) && !headers.has('idempotency-key')) {
    headers.set('idempotency-key', crypto.randomUUID())
  }
  const body = request.body === null ? null : await request.arrayBuffer()
  const idempotent = SAFE_METHODS.has(request.method) || headers.has('idempotency-key')
  return { url: request.url, method: request.method, headers, body, signal: request.signal, idempotent }
}

async function sendWithRetries(options: TransportOptions, template: Template, token?: string) {
  for (let attempt = 0; ; attempt += 1) {
    const headers = new Headers(template.headers)
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`)
    let response: Response
    try {
      response = await options.fetch(template.url, {
        method: template.method,
        headers,
        body: template.body,
        signal: template.signal,
      })
    } catch (error) {
      // The caller's own abort or timeout is not a connection failure: it stays as it is.
      if (template.signal.aborted) throw error
      if (!template.idempotent || attempt >= options.maxRetries) {
        throw new AmparoConnectionError(
          template.method,
          template.url,
          error,
          template.headers.get('accept-language'),
        )
      }
      await sleep(CONNECTION_RETRY_MS * 2 ** attempt, template.signal)
      continue
    }
    if (!RETRIED_STATUSES.has(response.status) || attempt >= options.maxRetries) return response
    await response.body?.cancel()
    await sleep(retryAfterMs(response.headers.get('retry-after')), template.signal)
  }
}

/** `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | null, now = Date.now()): number {
  if (value === null) return DEFAULT_RETRY_AFTER_MS
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? DEFAULT_RETRY_AFTER_MS : Math.max(0, date - now)
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const abort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort)
      resolve()
    }, ms)
    signal.addEventListener('abort', abort, { once: true })
  })
}

/**
 * The access token, fetched on first use. Calls that fail with the same stale token share one
 * new login instead of each making its own.
 */
class Session {
  private current: Promise<string> | undefined

  constructor(
    private readonly options: TransportOptions,
    private readonly loginUrl: string,
  ) {}

  token(): Promise<string> {
    if (this.current === undefined) {
      const login = this.login()
      this.current = login
      // A failed login is not kept: the next call tries again.
      login.catch(() => {
        if (this.current === login) this.current = undefined
      })
    }
    return this.current
  }

  async renew(stale: string): Promise<string> {
    const current = await this.current?.catch(() => undefined)
    if (current === stale) this.current = undefined
    return this.token()
  }

  private async login(): Promise<string> {
    const template: Template = {
      url: this.loginUrl,
      method: 'POST',
      headers: new Headers({
        'content-type': 'application/json',
        accept: 'application/json',
        ...(this.options.language !== undefined && { 'accept-language': this.options.language }),
      }),
      body: JSON.stringify({ client_id: this.options.clientId, client_secret: this.options.clientSecret }),
      signal: new AbortController().signal,
      // Logging in changes nothing: a second login only issues another token.
      idempotent: true,
    }
    const response = await sendWithRetries(this.options, template)
    if (!response.ok) throw await AmparoError.from(response)
    const { token } = (await response.json()) as { token: string }
    return token
  }
}
