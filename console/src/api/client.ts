import createClient, { type Middleware } from 'openapi-fetch'
import type { components, operations, paths } from './schema'

/** The operator API's error body (the same shape as the partner API's); empty when none came. */
export type ErrorBody = Partial<components['schemas']['Error']>

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? 'O servidor não respondeu como esperado. Tente de novo em instantes.')
  }

  get code(): string | undefined {
    return this.body.code
  }

  /** Every field error, one a line: each message names its field in words (the keys are the API's). */
  fieldErrors(): string[] {
    return [...new Set(Object.values(this.body.errors ?? {}).flat())]
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

/**
 * The JSON body of an operation's success answer (200 or 201), as the console's OpenAPI document
 * declares it (schema.d.ts): the screens read these types and no hand-written copy of them.
 */
export type Answer<Op extends keyof operations> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer Body } }
}
  ? Body
  : operations[Op]['responses'] extends { 201: { content: { 'application/json': infer Body } } }
    ? Body
    : never

/** The JSON body an operation takes. */
export type Input<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } }
}
  ? Body
  : never

type Query = Record<string, string | number | boolean | undefined>

/** "/api/claims/{id}/approve" → `/api/claims/${string}/approve`: a path the document declares, filled in. */
type Filled<P extends string> = P extends `${infer Head}{${string}}${infer Tail}`
  ? `${Head}${string}${Filled<Tail>}`
  : P
type PathWith<M extends 'get' | 'post' | 'delete'> = {
  [P in keyof paths & string]: paths[P] extends Record<M, object> ? Filled<P> : never
}[keyof paths & string]
/** Paths of the console's OpenAPI document (schema.d.ts), by method: a call to a path it lacks fails to compile. */
export type GetPath = PathWith<'get'>
export type PostPath = PathWith<'post'>
export type DeletePath = PathWith<'delete'>

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
export async function get<T>(path: GetPath, query?: Query): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: the path is checked against the generated schema where typed
  const result = await (client as any).GET(path, { params: { query: clean(query) } })
  return unwrap<T>(result)
}

export async function post<T>(path: PostPath, body?: unknown): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: see get()
  const result = await (client as any).POST(path, { body: body ?? {} })
  return unwrap<T>(result)
}

export async function del<T>(path: DeletePath): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: see get()
  const result = await (client as any).DELETE(path, {})
  return unwrap<T>(result)
}
