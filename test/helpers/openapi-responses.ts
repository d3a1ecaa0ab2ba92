import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * Checks responses against the app's own OpenAPI document (`app.swagger()`): the status must be
 * documented for the operation, and the body must validate against the schema documented for
 * that status. Globally allowed without being listed: 404 on a request no route matches, and
 * 429 and 503 anywhere; their bodies must still be the documented `Error`.
 */

interface MediaType {
  schema?: unknown
}
interface Operation {
  responses?: Record<string, { content?: Record<string, MediaType> }>
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, unknown> }
}

/** A documented route, in OpenAPI form (`/brands/{brandId}`). */
export interface MatchedRoute {
  method: string
  path: string
}

/** Statuses any route may answer without listing them. */
const GLOBAL_STATUSES = new Set([429, 503])

/** Never checked: the reference UI and the document itself are not API operations. */
export function isExcluded(url: string): boolean {
  const path = url.split('?')[0] ?? ''
  return path === '/openapi.json' || path === '/docs' || path.startsWith('/docs/')
}

// Formats of the request schemas: checked on input by the app, not re-checked on output.
const INPUT_ONLY_FORMATS = ['cpf', 'cnpj', 'cpf-or-cnpj', 'cep', 'br-state', 'br-phone', 'imei']

const DOCUMENT_ID = 'openapi.json'
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']

/** `/brands/:brandId` → `/brands/{brandId}` */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
const pointerEscape = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1')

interface RoutePattern {
  method: string
  path: string
  /** A literal segment, `null` for a parameter, `'*'` for a wildcard tail. */
  segments: (string | null)[]
  hidden: boolean
}

/** A route as the app registered it (`app.servedRoutes`): `/brands/:brandId`, `/docs/*`. */
export interface ServedRoute {
  method: string
  url: string
  hidden: boolean
}

/** Finds the route a concrete request reaches, the way the router does: static segments first. */
export class RouteMatcher {
  private readonly routes: RoutePattern[]

  constructor(routes: ServedRoute[]) {
    this.routes = routes
      .map(({ method, url, hidden }) => ({
        method: method.toLowerCase(),
        path: openapiPath(url),
        segments: url
          .split('/')
          .slice(1)
          .map((segment) => (segment.startsWith(':') || /^\{[^}]+\}$/.test(segment) ? null : segment)),
        hidden,
      }))
      .sort((a, b) => specificity(a.segments, b.segments))
  }

  /** The route `method url` reaches, in OpenAPI form, or null when none does. */
  match(method: string, url: string): { path: string; hidden: boolean } | null {
    let decoded: string[]
    // The router reads `/brands/` as `/brands` (ignoreTrailingSlash).
    const path = (url.split('?')[0] ?? '').replace(/(.)\/$/, '$1')
    try {
      decoded = path
        .split('/')
        .slice(1)
        .map((segment) => decodeURIComponent(segment))
    } catch {
      return null
    }
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase()
    const route = this.routes.find((r) => r.method === verb && matches(r.segments, decoded))
    return route ? { path: route.path, hidden: route.hidden } : null
  }
}

function matches(pattern: (string | null)[], segments: string[]): boolean {
  if (pattern.at(-1) === '*') {
    const head = pattern.slice(0, -1)
    return segments.length >= head.length && matches(head, segments.slice(0, head.length))
  }
  return (
    pattern.length === segments.length &&
    // A parameter matches an empty segment too, as the router's does.
    pattern.every((p, i) => p === null || p === segments[i])
  )
}

export class ResponseChecker {
  private readonly ajv: Ajv2020
  private readonly validators = new Map<string, ValidateFunction>()
  /** The document's operations, for apps that do not list what they serve. */
  readonly routes: RouteMatcher

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    addFormats.default(this.ajv)
    for (const format of INPUT_ONLY_FORMATS) this.ajv.addFormat(format, true)
    // The whole document is one schema, so `#/components/schemas/...` refs resolve inside it.
    this.ajv.addSchema(structuredClone(document) as object, DOCUMENT_ID)
    this.routes = new RouteMatcher(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => METHODS.includes(method))
          .map((method) => ({ method, url: path, hidden: false })),
      ),
    )
  }

  /**
   * Throws a descriptive error unless `body` (the raw text or parsed JSON) is what the document
   * promises for `status` of the operation `method routeUrl`. `routeUrl` is the route's pattern
   * (`/brands/:brandId` or `/brands/{brandId}`), or null when the request matched no route.
   */
  checkResponse(
    method: string,
    routeUrl: string | null,
    status: number,
    body: unknown,
    contentType?: string,
  ) {
    const verb = method.toLowerCase()
    const path = routeUrl === null ? null : openapiPath(routeUrl)
    const where = `${method.toUpperCase()} ${path ?? '(no route)'} → ${status}`
    // HEAD is served, undocumented, for every GET: the GET's statuses apply.
    const documentedVerb = verb === 'head' ? 'get' : verb
    const operation = path === null ? undefined : this.document.paths[path]?.[documentedVerb]
    if (path !== null && !operation) throw new Error(`${where}: the operation is not in the OpenAPI document`)

    let pointer: string | undefined
    const documented = operation?.responses?.[String(status)]
    // A 204 has no body to check (DELETE /webhook-endpoints/{id}).
    if (documented && status === 204 && !documented.content) return
    if (documented && !documented.content?.['application/json']) {
      // A download: its content type must be one documented, as bytes (`format: binary`).
      const media = documented.content?.[String(contentType).split(';')[0]?.trim() ?? '']
      if (!media) {
        const listed = Object.keys(documented.content ?? {}).join(', ')
        throw new Error(`${where}: content-type ${JSON.stringify(contentType)} is not documented (${listed})`)
      }
      if ((media.schema as { format?: string } | undefined)?.format !== 'binary') {
        throw new Error(`${where}: ${contentType} is documented, but not as bytes (format: binary)`)
      }
      return
    }
    if (documented) {
      const media = documented.content?.['application/json']
      if (!media?.schema) throw new Error(`${where}: the document gives no application/json schema for it`)
      pointer = `#/paths/${pointerEscape(path ?? '')}/${documentedVerb}/responses/${status}/content/application~1json/schema`
    } else if (GLOBAL_STATUSES.has(status) || (status === 404 && path === null)) {
      pointer = '#/components/schemas/Error'
    } else {
      const listed = Object.keys(operation?.responses ?? {}).join(', ')
      throw new Error(
        `${where}: status ${status} is not documented${path === null ? ' for an unmatched route' : ` (documented: ${listed})`}\nbody: ${preview(body)}`,
      )
    }

    // A HEAD answer has no body to check.
    if (verb === 'head') return
    if (contentType !== undefined && !/^application\/json\b/i.test(contentType)) {
      throw new Error(`${where}: content-type ${JSON.stringify(contentType)}, documented application/json`)
    }
    let data = body
    if (typeof body === 'string') {
      try {
        data = JSON.parse(body)
      } catch {
        throw new Error(`${where}: the body is not JSON\nbody: ${preview(body)}`)
      }
    }
    const validate = this.validator(pointer)
    if (!validate(data)) {
      throw new Error(
        `${where}: the body does not match the documented schema\n${describe(validate.errors ?? [])}\nbody: ${preview(data)}`,
      )
    }
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer)
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` })
      this.validators.set(pointer, validate)
    }
    return validate
  }
}

/** At the first segment where two routes differ in kind: static, then parameter, then wildcard. */
function specificity(a: (string | null)[], b: (string | null)[]): number {
  const rank = (segment: string | null | undefined) => (segment === '*' ? 2 : segment === null ? 1 : 0)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = rank(a[i]) - rank(b[i])
    if (difference !== 0) return difference
  }
  return 0
}

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((e) => `  ${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`)
    .join('\n')
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return text.length > 600 ? `${text.slice(0, 600)}… (${text.length} characters)` : text
}

/** One checker per distinct document, so each test file compiles its schemas once. */
const checkers = new Map<string, ResponseChecker>()

export function responseChecker(document: OpenApiDocument): ResponseChecker {
  const key = JSON.stringify(document)
  let checker = checkers.get(key)
  if (!checker) {
    checker = new ResponseChecker(document)
    checkers.set(key, checker)
  }
  return checker
}

/** The minimal surface of a Fastify app this module needs. */
interface SwaggerApp {
  swagger(): unknown
  servedRoutes?: ServedRoute[]
}

const perApp = new WeakMap<object, { checker: ResponseChecker; routes: RouteMatcher }>()

function loaded(app: SwaggerApp) {
  let entry = perApp.get(app)
  if (!entry) {
    const checker = responseChecker(app.swagger() as OpenApiDocument)
    // What the app serves, hidden routes included, so that a request reaching a hidden route
    // (test-only routes, the reference UI) is recognised and skipped.
    const routes = app.servedRoutes
      ? new RouteMatcher(app.servedRoutes.filter((r) => r.method !== 'HEAD'))
      : checker.routes
    entry = { checker, routes }
    perApp.set(app, entry)
  }
  return entry
}

/**
 * The checker for an app's document, loaded once per app (which must be ready):
 * `checkerFor(app).checkResponse(method, routeUrl, status, body)`.
 */
export function checkerFor(app: SwaggerApp): ResponseChecker {
  return loaded(app).checker
}

/**
 * Checks one injected response, finding its route from the request's method and URL. Hidden
 * routes (the reference UI, the document itself, test-only routes) are not checked.
 */
export function checkInjected(
  app: SwaggerApp,
  request: { method: string; url: string },
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
) {
  if (isExcluded(request.url)) return
  const { checker, routes } = loaded(app)
  const route = routes.match(request.method, request.url)
  if (route?.hidden) return
  const contentType = response.headers['content-type']
  checker.checkResponse(
    request.method,
    route?.path ?? null,
    response.statusCode,
    response.body,
    typeof contentType === 'string' ? contentType : undefined,
  )
}
