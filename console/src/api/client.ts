import createClient, { type Middleware } from 'openapi-fetch'
import type { paths } from './schema'

/** The operator API's error body (the same shape as the partner API's). */
export interface ErrorBody {
  code?: string
  message?: string
  errors?: Record<string, string[] | string>
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? `HTTP ${status}`)
  }

  get code(): string | undefined {
    return this.body.code
  }

  /** Every field error as one line: "campo: mensagem". */
  fieldErrors(): string[] {
    return Object.entries(this.body.errors ?? {}).map(
      ([field, messages]) => `${field}: ${Array.isArray(messages) ? messages.join('; ') : messages}`,
    )
  }
}

/** Called when the server answers 401 to anything but the login itself: the session is gone. */
let onUnauthenticated: () => void = () => {}
export function setUnauthenticatedHandler(handler: () => void) {
  onUnauthenticated = handler
}

const unauthenticated: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/session')) {
      onUnauthenticated()
    }
    return undefined
  },
}

export const client = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: { 'Accept-Language': 'pt-BR' },
})
client.use(unauthenticated)

type Query = Record<string, string | number | boolean | undefined>

function unwrap<T>(result: { data?: unknown; error?: unknown; response: Response }): T {
  if (!result.response.ok) {
    const body = (result.error && typeof result.error === 'object' ? result.error : {}) as ErrorBody
    throw new ApiError(result.response.status, body)
  }
  return result.data as T
}

function clean(query: Query | undefined): Query | undefined {
  if (!query) return undefined
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''))
}

/** GET a path of the operator API; throws ApiError on any non-2xx answer. */
export async function get<T>(path: string, query?: Query): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: the path is checked against the generated schema where typed
  const result = await (client as any).GET(path, { params: { query: clean(query) } })
  return unwrap<T>(result)
}

export async function post<T>(path: string, body?: unknown): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: see get()
  const result = await (client as any).POST(path, { body: body ?? {} })
  return unwrap<T>(result)
}

export async function del<T>(path: string): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: see get()
  const result = await (client as any).DELETE(path, {})
  return unwrap<T>(result)
}
