import createClient from 'openapi-fetch'
import type { components, operations, paths } from './schema'

// The portal's calls to its own JSON API, typed from its OpenAPI document (schema.d.ts, generated
// by `npm run portal:generate`): the screens read these types and no hand-written copy of them.

export type ErrorBody = Partial<components['schemas']['Error']>

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? 'O servidor não respondeu como esperado. Tente de novo em instantes.')
  }

  /** Every field error, one a line. */
  fieldErrors(): string[] {
    return [...new Set(Object.values(this.body.errors ?? {}).flat())]
  }
}

export type Answer<Op extends keyof operations> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer Body } }
}
  ? Body
  : operations[Op]['responses'] extends { 201: { content: { 'application/json': infer Body } } }
    ? Body
    : never

export type Contract = Answer<'listContracts'>['data'][number]
export type Claim = Answer<'getClaim'>
export type ClaimInput = operations['openClaim']['requestBody']['content']['application/json']

let onUnauthenticated: () => void = () => {}
export function setUnauthenticatedHandler(handler: () => void) {
  onUnauthenticated = handler
}

export const client = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: { 'Accept-Language': 'pt-BR' },
})
client.use({
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/session'))
      onUnauthenticated()
    return undefined
  },
})

/** The answer's body, or an ApiError for any non-2xx answer. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok) {
    const body = (result.error && typeof result.error === 'object' ? result.error : {}) as ErrorBody
    throw new ApiError(result.response.status, body)
  }
  return result.data as T
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const lines = error.fieldErrors()
    return lines.length > 0 ? lines.join('\n') : error.message
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * Sends one document of a claim as a form, reporting its progress (0 to 1): fetch cannot tell how
 * much of a body has gone, XMLHttpRequest can.
 */
export function uploadDocument(
  claimId: number,
  kind: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open('POST', `/api/claims/${claimId}/documents`)
    request.setRequestHeader('Accept-Language', 'pt-BR')
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total)
    }
    request.onload = () => {
      if (request.status === 201) return resolve()
      let body: ErrorBody = {}
      try {
        body = JSON.parse(request.responseText) as ErrorBody
      } catch {
        // Not JSON (a proxy's page): the generic message.
      }
      reject(new ApiError(request.status, body))
    }
    request.onerror = () => reject(new Error('A conexão caiu durante o envio. Tente de novo.'))
    const form = new FormData()
    form.append('kind', kind)
    form.append('file', file)
    request.send(form)
  })
}
