// Reading an OpenAPI document's examples and turning them into requests, for
// test/openapi-examples.test.ts: the requests an operation's examples make, the operations that
// must run first so that they can succeed, and the request that causes each error example.

import { form, jpeg, pdf, png } from './claim-documents.js'

type Schema = { type?: unknown; enum?: unknown[]; pattern?: string; format?: string; anyOf?: Schema[] }
type Parameter = {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  schema: Schema
  example?: unknown
  examples?: Record<string, { value: unknown }>
}
type Media = { example?: unknown; examples?: Record<string, { value: unknown }> }
export type Link = { operationId: string; parameters: Record<string, string> }
export type Operation = {
  operationId: string
  parameters?: Parameter[]
  requestBody?: { content: Record<string, Media> }
  responses: Record<string, { content?: Record<string, Media>; links?: Record<string, Link> }>
}
export type OpenApi = { paths: Record<string, Record<string, Operation>> }

export type ErrorExample = { code: string; errors?: Record<string, string[]> }

export interface Entry {
  method: string
  path: string
  operationId: string
  operation: Operation
  successStatus: number
  /** The media types of the success answer (`application/pdf` for a certificate); none for a 204. */
  successTypes: string[]
  /** Documented error statuses and their examples. */
  errorExamples: [number, ErrorExample][]
  /** Each query parameter, and whether its schema admits a blank value. */
  blankQuery: [string, boolean][]
}

/** One request: path parameters left undefined are read from the links of earlier answers. */
export interface Call {
  label: string
  path: Record<string, string | undefined>
  query: Record<string, string>
  headers: Record<string, string>
  body?: unknown
  /** A body sent as is, with its content type: a multipart form, invalid JSON, another media type, too large. */
  raw?: { payload: string | Buffer; contentType: string }
  anonymous?: boolean
  /** The demo partner the example is written for, when its name says (`externalGateway`, `ownGateway`). */
  gateway?: Gateway
}

export type Gateway = 'external' | 'own'

/** The partner a named request example is written for (src/http/contracting-fields.ts `gatewayExamples`). */
const GATEWAY_OF_EXAMPLE: Record<string, Gateway> = { externalGateway: 'external', ownGateway: 'own' }

/**
 * Statuses whose examples no request built from the examples can cause on the demo; each has its
 * own tests. (429 is caused by the example test's second part, on an app with tiny limits.)
 */
export const NOT_CAUSED: Record<number, string> = {
  408: 'a body that stops arriving (test/hardening.test.ts)',
  409: 'a request still in flight (test/idempotency.test.ts, test/stripe-payments.test.ts)',
  431: 'request headers over 16 KB, refused by the HTTP parser before any route (test/server.test.ts)',
  500: 'a server fault, a bug by definition (test/errors.test.ts)',
  502: 'the card gateway refusing our request (test/stripe-payments.test.ts, test/error-codes.test.ts)',
  503: 'the database unreachable (test/outage.test.ts)',
}

const exampleOf = (holder: { example?: unknown; examples?: Record<string, { value: unknown }> }) =>
  holder.example ?? Object.values(holder.examples ?? {})[0]?.value

export function operationsOf(document: OpenApi): Entry[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const statuses = Object.keys(operation.responses).map(Number)
      // A create documents its 201 beside the 200 a repeat answers (a PIX code still payable).
      const successStatus = statuses.includes(201) ? 201 : (statuses.find((s) => s < 300) ?? 200)
      return {
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        operation,
        successStatus,
        successTypes: Object.keys(operation.responses[successStatus]?.content ?? {}),
        errorExamples: statuses
          .filter((s) => s >= 400)
          .map((s) => [s, exampleOf(operation.responses[s]?.content?.['application/json'] ?? {})] as const)
          .filter((pair): pair is [number, ErrorExample] => pair[1] !== undefined),
        blankQuery: (operation.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map(
            (p) =>
              [p.name, (p.schema.anyOf ?? []).some((s) => s.enum?.length === 1 && s.enum[0] === '')] as [
                string,
                boolean,
              ],
          ),
      }
    }),
  )
}

/** The requests of an operation's examples: one a request body example (or one without body). */
export function requestsOf(entry: Entry): Call[] {
  const path: Call['path'] = {}
  const query: Call['query'] = {}
  const headers: Call['headers'] = {}
  for (const parameter of entry.operation.parameters ?? []) {
    const example = exampleOf(parameter)
    if (parameter.in === 'path') path[parameter.name] = example === undefined ? undefined : String(example)
    else if (example !== undefined && parameter.in === 'query') query[parameter.name] = String(example)
    else if (example !== undefined && parameter.in === 'header') headers[parameter.name] = String(example)
  }
  const content = entry.operation.requestBody?.content ?? {}
  const media = content['application/json'] ?? content['multipart/form-data']
  const bodies: [string, unknown, Gateway?][] = media?.examples
    ? Object.entries(media.examples).map(([name, { value }]) => [
        `request example ${name}`,
        value,
        GATEWAY_OF_EXAMPLE[name],
      ])
    : media?.example !== undefined
      ? [['request example', media.example]]
      : [['request without body', undefined]]
  const multipart = content['application/json'] === undefined && content['multipart/form-data'] !== undefined
  return bodies.map(([label, body, gateway]) => ({
    label,
    ...(gateway && { gateway }),
    path: { ...path },
    query: { ...query },
    headers: { ...headers },
    ...(multipart ? { raw: formOf(body as Record<string, string>) } : { body }),
  }))
}

/** A file the example names, `(the bytes of tela-quebrada.jpg)`, made from bytes of its type. */
const FILES: Record<string, () => Buffer> = {
  jpg: () => jpeg(),
  png: () => png(),
  pdf: () => pdf(),
}

/** A multipart example as a form: its text fields as they are, its files made from their names. */
function formOf(example: Record<string, string>, fileBytes?: number) {
  const parts = Object.entries(example).map(([name, value]) => {
    const filename = /^\(the bytes of (.+)\)$/.exec(value)?.[1]
    if (filename === undefined) return { name, value }
    const make = FILES[filename.split('.').pop() ?? '']
    if (!make) throw new Error(`no maker of ${filename}'s bytes`)
    const bytes = fileBytes === undefined ? make() : Buffer.alloc(fileBytes, 1)
    return { name, value: bytes, filename, contentType: 'application/octet-stream' }
  })
  const { payload, headers } = form(parts)
  return { payload, contentType: headers['content-type'] as string }
}

/**
 * Error statuses an operation documents that its examples cannot cause on the demo: each has its
 * own test.
 */
export const NOT_CAUSED_BY: Record<string, Record<number, string>> = {
  getClientPackage: { 404: 'a service started without the package built (test/sdk.test.ts)' },
}

/** Operations whose success no example can bring about on the demo; each has its own tests. */
export const SUCCESS_NOT_CAUSED: Record<string, string> = {
  receiveStripeEvent: "Stripe's signature over the exact body, made at delivery (test/stripe-events.test.ts)",
  getPixImage: "a PIX code's random image address (test/pix-boleto-sandbox.test.ts)",
  paySandboxPayment: 'a PIX code or boleto asked for first, by its id (test/pix-boleto-sandbox.test.ts)',
}

/** Operations that act on a contract in a later state than contracted, and what brings it there. */
const AFTER: Record<string, string[]> = {
  // A certificate is issued for a contract in force: the subscription's installment 1 paid, the plan paid.
  getSubscriptionCertificate: ['notifyInstallmentPayment'],
  getAnnualPlanCertificate: ['notifyAnnualPlanPayment'],
  // The card on file is replaced once installment 1 is paid (by the payment, which keeps the card).
  updateSubscriptionCard: ['payFirstInstallmentByCard'],
  // An installment is named by the list of them.
  notifyInstallmentPayment: ['listInstallments'],
  requestInstallmentPix: ['listInstallments'],
  // A document is downloaded once uploaded; a claim is decided once its documents are all sent.
  downloadClaimDocument: ['uploadClaimDocument'],
  decideSandboxClaim: ['uploadClaimDocument'],
  // A claim is settled once approved (the decision's first example approves it).
  settleSandboxClaim: ['decideSandboxClaim'],
}

/**
 * Setup steps that send every request example, not only the first: the upload's examples are the
 * documents a theft claim requires, all needed before it can be decided.
 */
const EVERY_EXAMPLE = new Set(['uploadClaimDocument'])

/** The request examples written for the partner of `gateway` (those that name none are for both). */
export const requestsFor = (entry: Entry, gateway: Gateway): Call[] =>
  requestsOf(entry).filter((call) => call.gateway === undefined || call.gateway === gateway)

/** The calls a setup step sends as the partner of `gateway`. */
export const setupCallsOf = (step: Entry, gateway: Gateway): Call[] =>
  EVERY_EXAMPLE.has(step.operationId) ? requestsFor(step, gateway) : requestsFor(step, gateway).slice(0, 1)

/**
 * The operations whose first examples must run before this one's, in order, on a fresh demo: the
 * customer and the store a contracting body names, the contract a subscription or annual plan
 * path names, the cancellation request a protocol comes from, an event for an event's path.
 *
 * `stateless`: without the steps that bring this operation's contract to the state it needs
 * (AFTER), for its `invalid_state` example.
 */
export function setupOf(operations: Entry[], entry: Entry, { stateless = false } = {}): Entry[] {
  const byId = new Map(operations.map((e) => [e.operationId, e]))
  const needs = (e: Entry): string[] => {
    const body = (requestsOf(e)[0]?.body ?? {}) as Record<string, unknown>
    return [
      ...(e.path.includes('{document}') || 'customer_document' in body || 'customer_id' in body
        ? ['registerCustomer']
        : []),
      ...('store_id' in body ? ['registerStore'] : []),
      ...(e.path.startsWith('/subscriptions/{') || e.path.startsWith('/events/{')
        ? ['contractSubscription']
        : []),
      ...(e.path.startsWith('/annual-plans/{') ? ['contractAnnualPlan'] : []),
      ...(e.path.startsWith('/webhook-endpoints/{') ? ['createWebhookEndpoint'] : []),
      ...(e.path.includes('{protocol}') ? ['requestAnnualPlanCancellation'] : []),
      ...(e.path.startsWith('/events/{') ? ['listEvents'] : []),
      // The claim the examples name is opened on the demo's contract in force (src/demo/demo-contract.ts).
      ...(e.path.startsWith('/claims/{') || e.path.startsWith('/sandbox/claims/{') ? ['openClaim'] : []),
      ...((stateless && e === entry ? [] : AFTER[e.operationId]) ?? []),
    ].filter((id) => id !== e.operationId)
  }
  const order: Entry[] = []
  const visit = (e: Entry) => {
    for (const id of needs(e)) {
      const step = byId.get(id)
      if (!step) throw new Error(`${entry.operationId} needs ${id}, which the document does not have`)
      if (!order.includes(step)) {
        visit(step)
        order.push(step)
      }
    }
  }
  visit(entry)
  return order
}

/** The sandbox's approving test cards, and the one that declines (the `payFirstInstallmentByCard` operation lists them). */
const APPROVED = new Set(['4111111111111111', '5555555555554444'])
const DECLINED = '4000000000000002'

function declined(value: unknown): unknown {
  if (typeof value === 'string') return APPROVED.has(value) ? DECLINED : value
  if (Array.isArray(value)) return value.map(declined)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, declined(v)]))
  return value
}

/** A value the parameter's schema refuses (the blank branch of a query schema aside). */
function invalidValue(parameter: Parameter): string {
  const schema = parameter.schema.anyOf?.[0] ?? parameter.schema
  if (schema.type === 'integer' || schema.type === 'number') return 'abc'
  if (schema.enum) return 'not-a-choice'
  return '!'
}

/** A well-formed value that names nothing: a valid CPF no demo customer has, an unused id. */
function unknownValue(parameter: Parameter): string {
  if (parameter.schema.type === 'integer') return '2147483647'
  if (parameter.schema.format?.startsWith('cpf')) return '11144477735'
  return 'unknown'
}

/**
 * The request that causes `status` (its example's code) from the operation's resolved example
 * call, or why there is none.
 */
export function errorCause(status: number, example: ErrorExample, entry: Entry, call: Call): Call | string {
  const parameters = entry.operation.parameters ?? []
  const json = (payload: string) => ({ ...call, raw: { payload, contentType: 'application/json' } })
  switch (status) {
    case 400:
      return json('{')
    case 401:
      return call.body && typeof call.body === 'object' && 'client_secret' in call.body
        ? { ...call, body: { ...call.body, client_secret: 'not-the-secret' } }
        : { ...call, anonymous: true }
    case 402:
      return JSON.stringify(call.body).includes(DECLINED) || call.body === undefined
        ? 'no card in the request example'
        : { ...call, body: declined(call.body) }
    case 404: {
      const inPath = parameters.filter((p) => p.in === 'path')
      if (inPath.length === 0) return 'no path parameter to name an unknown resource'
      return { ...call, path: Object.fromEntries(inPath.map((p) => [p.name, unknownValue(p)])) }
    }
    case 413: {
      // An upload's limit is its file's (10 MiB), past any JSON body's: a form with a larger file.
      const multipart = entry.operation.requestBody?.content['multipart/form-data']
      const example = multipart && exampleOf(multipart)
      if (example) return { ...call, raw: formOf(example as Record<string, string>, 16 * 1024 * 1024) }
      return json(JSON.stringify({ filler: 'x'.repeat(2 * 1024 * 1024) }))
    }
    case 415:
      return { ...call, raw: { payload: 'x', contentType: 'text/plain' } }
    case 422: {
      // The same call, on a contract not yet in the state the operation needs (setupOf `stateless`).
      if (example.code === 'invalid_state') return call
      const key = Object.keys(example.errors ?? {})[0] ?? ''
      const body = call.body as Record<string, unknown> | undefined
      if (body && key in body)
        return { ...call, body: Object.fromEntries(Object.entries(body).filter(([k]) => k !== key)) }
      const parameter = parameters.find((p) => p.name === key && (p.in === 'query' || p.in === 'path'))
      if (parameter?.in === 'query')
        return { ...call, query: { ...call.query, [key]: invalidValue(parameter) } }
      if (parameter?.in === 'path') return { ...call, path: { ...call.path, [key]: invalidValue(parameter) } }
      if (key === 'Idempotency-Key')
        return { ...call, headers: { ...call.headers, 'Idempotency-Key': 'not a key' } }
      return `nothing in the examples to leave out or spoil under ${key}`
    }
    default:
      return `no way to cause a ${status} from the examples`
  }
}
