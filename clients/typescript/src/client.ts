import createClient, { type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch'
import type { ClaimDocument, ClaimDocumentKind } from './resources.js'
import type { paths } from './schema.js'
import { amparoFetch } from './transport.js'

export interface AmparoClientOptions {
  /** The service's address, e.g. `https://api.amparo.example` or `http://127.0.0.1:3000`. */
  baseUrl: string
  clientId: string
  clientSecret: string
  /** Another `fetch` (a proxy agent, a test double); the global one by default. */
  fetch?: typeof globalThis.fetch
  /**
   * Retries of an answer 429 or 503, each after its `Retry-After`, and of a GET or keyed write no
   * answer came to (refused, reset: `AmparoConnectionError` once they are spent). Default 3.
   */
  maxRetries?: number
  /**
   * The language of the service's error messages: sent as `Accept-Language` on every call, the
   * login included. `'pt-BR'` gives every `message` and field error in Portuguese (and this
   * client's own connection-failure message); English by default. Codes and field keys never change.
   */
  language?: string
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type Media = `${string}/${string}`

/** The paths that have this method. */
type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never
}[keyof paths]

/** The operation at this path and method. */
type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O }
  ? O extends Record<string, unknown>
    ? O
    : never
  : never

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T]
/** The second argument is optional when nothing in it is required (openapi-fetch's rule). */
type InitArg<Init> = [RequiredKeys<Init>] extends [never]
  ? [(Init & { [key: string]: unknown })?]
  : [Init & { [key: string]: unknown }]

/** A call never resolves with an error (it throws `AmparoError`), so `data` is always there. */
type Success<R> = Extract<R, { error?: never }>

type TypedMethod<M extends Method> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitArg<Init>
) => Promise<Success<FetchResponse<Operation<P, M>, Init, Media>>>

/** One document of a claim, as `uploadClaimDocument` sends it. */
export interface ClaimDocumentUpload {
  /** What the document is: `police_report`, `invoice`, `photo`… (the claim's `required_documents`). */
  kind: ClaimDocumentKind
  /** Its bytes: a `Blob` or `File` (browsers, `fs.openAsBlob`) or a `Buffer` / `Uint8Array` (`fs.readFile`). */
  file: Blob | Uint8Array
  /** Kept as the document's label; by default a `File`'s own name, else `document`. */
  filename?: string
  /** The key of this upload, to send it again later as the same one; a fresh one by default. */
  idempotencyKey?: string
  signal?: AbortSignal
}

export interface AmparoClient {
  GET: TypedMethod<'get'>
  POST: TypedMethod<'post'>
  PUT: TypedMethod<'put'>
  PATCH: TypedMethod<'patch'>
  DELETE: TypedMethod<'delete'>
  /**
   * `POST /claims/{id}/documents` as `multipart/form-data` (`kind` and `file`): resolves with the
   * stored document (201) or throws `AmparoError` (413 over 10 MiB, 415 not a JPEG, PNG, WebP,
   * HEIC or PDF by its bytes, 422…). Retried like every write, with its `Idempotency-Key`: the
   * same kind and bytes under the key are stored once.
   */
  uploadClaimDocument(claimId: number, upload: ClaimDocumentUpload): Promise<ClaimDocument>
}

/**
 * A typed client of the Amparo API (openapi-fetch): `await amparo.GET('/models/{modelId}', {
 * params: { path: { modelId: 10 } } })` resolves with `{ data, response }` or throws
 * `AmparoError`. It logs in by itself, logs in again once when a token stops working (401),
 * adds an `Idempotency-Key` to every POST, PUT and PATCH that has none, and retries 429 and 503
 * after `Retry-After`, and a request no answer came to, up to `maxRetries` times, with the same key.
 * `language: 'pt-BR'` has the service answer its errors in Portuguese.
 */
export function createAmparoClient({
  baseUrl,
  clientId,
  clientSecret,
  fetch = globalThis.fetch,
  maxRetries = 3,
  language,
}: AmparoClientOptions): AmparoClient {
  const send = amparoFetch({ baseUrl, clientId, clientSecret, fetch, maxRetries, language })
  const client = createClient<paths>({ baseUrl, headers: { accept: 'application/json' }, fetch: send })
  const { GET, POST, PUT, PATCH, DELETE } = client
  const typed = { GET, POST, PUT, PATCH, DELETE } as Omit<AmparoClient, 'uploadClaimDocument'>
  return {
    ...typed,
    async uploadClaimDocument(claimId, { kind, file, filename, idempotencyKey, signal }) {
      const form = new FormData()
      form.set('kind', kind)
      // A copy into a Blob of its own: a Buffer may be a view into a larger pool.
      const blob = file instanceof Blob ? file : new Blob([new Uint8Array(file)])
      form.set('file', blob, filename ?? (file instanceof File ? file.name : 'document'))
      const headers = new Headers({ accept: 'application/json' })
      if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey)
      // The transport reads the form once (its boundary in the content type) and sends those bytes
      // again on a retry, under the same key.
      const url = `${baseUrl.replace(/\/+$/, '')}/claims/${encodeURIComponent(claimId)}/documents`
      const response = await send(url, { method: 'POST', headers, body: form, ...(signal && { signal }) })
      return (await response.json()) as ClaimDocument
    },
  }
}
