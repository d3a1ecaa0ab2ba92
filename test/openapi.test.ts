import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../src/modules/events/event.service.js'
import { createTestApp, useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken, seedCatalog } from './helpers/world.js'

const ctx = useTestApp()

type Operation = {
  operationId?: string
  summary?: string
  description?: string
  security?: unknown[]
  requestBody?: { required?: boolean }
  responses: Record<
    string,
    {
      description?: string
      headers?: Record<string, unknown>
      content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }>
    }
  >
}

/** Every operation of the document, as `METHOD /path`. */
function operations(doc: Awaited<ReturnType<typeof document>>) {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
  )
}

async function document() {
  const response = await ctx.app.inject({ method: 'GET', url: '/openapi.json' })
  expect(response.statusCode).toBe(200)
  return response.json() as {
    openapi: string
    servers?: { url: string }[]
    paths: Record<string, Record<string, Operation>>
    components: { schemas: Record<string, { examples?: unknown[]; anyOf?: { $ref: string }[] }> }
    webhooks?: Record<
      string,
      { post: Operation & { tags?: string[]; parameters?: { name: string; in: string }[] } }
    >
    tags: { name: string }[]
  }
}

/** The names of the components a part of the document refers to. */
const refsIn = (value: unknown) =>
  [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1] ?? '')

/** `/brands/:brandId` → `/brands/{brandId}` */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await document()
    expect(doc.openapi).toBe('3.1.0')
    const result = await new Validator().validate(doc as never)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it('lists every registered route, and nothing else', async () => {
    const doc = await document()
    const served = ctx.app.servedRoutes
      .filter((r) => !r.hidden && r.method !== 'HEAD')
      .map((r) => `${r.method} ${openapiPath(r.url)}`)
      .sort()
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort()
    expect(served.length).toBeGreaterThan(5)
    expect(documented).toEqual(served)
  })

  it('describes every operation: summary, description, success and error responses with schemas', async () => {
    const doc = await document()
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`
        expect(op.summary, where).toBeTruthy()
        expect(op.description, where).toBeTruthy()
        const statuses = Object.keys(op.responses)
        expect(
          statuses.some((s) => s.startsWith('2')),
          where,
        ).toBe(true)
        expect(statuses, where).toContain('500')
        // A 204 (DELETE /webhook-endpoints/{id}) has no body, hence no schema nor example.
        // A download (GET /claims/{id}/documents/{documentId}) answers bytes: each type as binary.
        const isDownload = (content: Operation['responses'][string]['content']) =>
          Object.values(content ?? {}).length > 0 &&
          Object.values(content ?? {}).every((m) => (m.schema as { format?: string })?.format === 'binary')
        for (const [status, response] of Object.entries(op.responses)) {
          if (status === '204') continue
          if (status.startsWith('2') && isDownload(response.content)) continue
          expect(response.content?.['application/json']?.schema, `${where} ${status}`).toBeDefined()
        }
        const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'))
        if (success?.[0] === '204' || isDownload(success?.[1]?.content)) continue
        const media = success?.[1]?.content?.['application/json']
        const hasExample =
          JSON.stringify(media).includes('"example') ||
          refsIn(media).some((name) => doc.components.schemas[name]?.examples?.length)
        expect(hasExample, `${where} has an example`).toBe(true)
      }
    }
  })

  it('names every resource in components.schemas and refers to it by $ref', async () => {
    const doc = await document()
    const named = Object.keys(doc.components.schemas)
    for (const name of [
      'Subscription',
      'Installment',
      'AnnualPlan',
      'Claim',
      'ClaimDocument',
      'Customer',
      'Model',
    ])
      expect(named, name).toContain(name)
    for (const name of ['Brand', 'Plan', 'Shopkeeper', 'WebhookEndpoint', 'WebhookDelivery', 'Event'])
      expect(named, name).toContain(name)
    const subscription = doc.paths['/subscriptions/{subscriptionId}']?.get?.responses['200']
    expect(subscription?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Subscription',
    })
    // Nested resources too: a subscription's customer is the Customer.
    expect(refsIn(doc.components.schemas.Subscription)).toContain('Customer')
    // Every reference resolves.
    for (const name of refsIn(doc)) expect(named, name).toContain(name)
  })

  it('describes each event type’s webhook: its payload by type, the Standard Webhooks headers, the tag declared', async () => {
    const doc = await document()
    const webhooks = doc.webhooks ?? {}
    expect(Object.keys(webhooks).sort()).toEqual([...EVENT_TYPES].sort())
    const payload = (type: string) => refsIn(webhooks[type]?.post.requestBody)
    expect(payload('subscription.activated')).toEqual(['SubscriptionEvent'])
    expect(payload('installment.payment_failed')).toEqual(['InstallmentEvent'])
    expect(payload('annual_plan.refund_updated')).toEqual(['AnnualPlanEvent'])
    expect(payload('claim.settled')).toEqual(['ClaimEvent'])
    expect(payload('payment.disputed')).toEqual(['PaymentEvent'])
    expect(payload('ping')).toEqual(['PingEvent'])
    for (const [type, { post }] of Object.entries(webhooks)) {
      expect(post.tags, type).toEqual(['Webhooks'])
      expect(post.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual([
        'header webhook-id',
        'header webhook-timestamp',
        'header webhook-signature',
      ])
    }
    // The event the feed answers is any of them, told apart by `type`.
    expect(refsIn(doc.components.schemas.Event?.anyOf)).toEqual([
      'SubscriptionEvent',
      'InstallmentEvent',
      'AnnualPlanEvent',
      'ClaimEvent',
      'PaymentEvent',
      'PingEvent',
    ])
    // Every tag an operation or webhook uses is declared.
    const declared = new Set(doc.tags.map((tag) => tag.name))
    const used = [...operations(doc).map(({ op }) => op), ...Object.values(webhooks).map((w) => w.post)]
    for (const op of used)
      for (const tag of (op as { tags?: string[] }).tags ?? []) expect(declared).toContain(tag)
  })

  it('documents 431 (headers over 16 KB) on every operation', async () => {
    for (const { where, op } of operations(await document())) {
      const media = op.responses['431']?.content?.['application/json'] as
        | { example?: { code?: string } }
        | undefined
      expect(media?.example?.code, where).toBe('headers_too_large')
    }
  })

  it('marks a query parameter required only when it has no default', async () => {
    const doc = (await document()) as unknown as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>
      >
    }
    const required = (path: string, method: string) =>
      (doc.paths[path]?.[method]?.parameters ?? [])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => p.name)
    for (const path of ['/brands', '/models', '/shopkeepers', '/subscriptions', '/annual-plans']) {
      expect(required(path, 'get'), path).toEqual([])
    }
    expect(required('/quotation', 'get')).toEqual(['model_id'])
  })

  it('documents Idempotency-Key on every authenticated write (PATCH too) and X-CREDENTIALS on login', async () => {
    const doc = (await document()) as unknown as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; security?: unknown[] }>
      >
    }
    const headers = (op: { parameters?: { name: string; in: string }[] }) =>
      (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name)
    const writes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => method === 'post' || method === 'put' || method === 'patch')
        .map(([method, op]) => ({ where: `${method} ${path}`, op })),
    )
    expect(writes.length).toBeGreaterThan(10)
    for (const { where, op } of writes) {
      // Stripe's deliveries carry their own key: the event id, applied once.
      if (where === 'post /stripe/webhooks') continue
      expect(headers(op), where).toEqual(
        where === 'post /auth/login' ? ['X-CREDENTIALS'] : ['Idempotency-Key'],
      )
    }
    for (const path of ['/subscriptions', '/brands', '/health']) {
      expect(headers(doc.paths[path]?.get ?? {}), path).toEqual([])
    }
  })

  it('gives each error status of each operation its own example, with a code listed for it', async () => {
    type Media = {
      schema: { allOf?: [unknown, { properties: { code: { enum: string[] } } }] }
      example?: { code?: string }
    }
    const codes = new Set<string>()
    for (const { where, op } of operations(await document())) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        const media = response.content?.['application/json'] as Media | undefined
        expect(media?.example?.code, `${where} ${status}`).toBeDefined()
        expect(media?.schema.allOf?.[1].properties.code.enum, `${where} ${status}`).toContain(
          media?.example?.code,
        )
        codes.add(String(media?.example?.code))
      }
    }
    // Not one example for all: each status shows its own code.
    expect(codes.size).toBeGreaterThan(10)
  })

  it('documents the customer reference of the contracting bodies as anyOf of whole bodies, without changing validation', async () => {
    const doc = (await document()) as unknown as {
      paths: Record<
        string,
        { post: { requestBody: { content: { 'application/json': { schema: object } } } } }
      >
    }
    for (const path of ['/subscriptions', '/annual-plans']) {
      const schema = doc.paths[path]?.post.requestBody.content['application/json'].schema as {
        anyOf?: { required: string[] }[]
      }
      // Each form whole (a generated client types a partial form as a body of its own).
      expect(
        schema.anyOf?.map((branch) => branch.required.filter((name) => name.startsWith('customer_'))),
        path,
      ).toEqual([['customer_id'], ['customer_document']])
      for (const branch of schema.anyOf ?? []) expect(branch.required, path).toContain('model_id')
      expect(JSON.stringify(schema), path).not.toContain('x-documented-only')
    }
  })

  it('admits a blank value for every optional query parameter (the service reads it as absent)', async () => {
    const doc = (await document()) as unknown as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string; in: string; required: boolean; schema: { anyOf?: unknown[] } }[] }
        >
      >
    }
    const query = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => (op.parameters ?? []).filter((p) => p.in === 'query')),
    )
    expect(query.length).toBeGreaterThan(10)
    // test/openapi-examples.test.ts sends each blank: accepted where admitted, refused where required.
    for (const parameter of query) {
      const blank = expect.objectContaining({ enum: [''] })
      if (parameter.required) expect(parameter.schema.anyOf ?? [], parameter.name).not.toContainEqual(blank)
      else expect(parameter.schema.anyOf, parameter.name).toContainEqual(blank)
    }
  })

  it('links the main flows, each link naming an operation and exactly its path parameters', async () => {
    type Linked = Operation & {
      parameters?: { name: string; in: string }[]
      responses: Record<string, { links?: Record<string, { operationId: string; parameters: object }> }>
    }
    const ops = operations(await document()) as { where: string; op: Linked }[]
    const byId = new Map(ops.map(({ op }) => [op.operationId, op]))
    const followed = new Set<string>()
    for (const { where, op } of ops) {
      for (const response of Object.values(op.responses)) {
        for (const [name, link] of Object.entries(response.links ?? {})) {
          const target = byId.get(link.operationId)
          expect(target, `${where} ${name}`).toBeDefined()
          const pathParameters = (target?.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)
          expect(Object.keys(link.parameters).sort(), `${where} ${name}`).toEqual(pathParameters.sort())
          followed.add(`${op.operationId} → ${link.operationId}`)
        }
      }
    }
    for (const flow of [
      'contractSubscription → getSubscription',
      'contractSubscription → listInstallments',
      'contractSubscription → payFirstInstallmentByCard',
      'listInstallments → notifyInstallmentPayment',
      'contractAnnualPlan → getAnnualPlan',
      'contractAnnualPlan → payAnnualPlanByCard',
      'contractAnnualPlan → notifyAnnualPlanPayment',
      'requestAnnualPlanCancellation → confirmAnnualPlanCancellation',
    ])
      expect([...followed]).toContain(flow)
  })

  it('names every operation with a unique operationId and describes every response', async () => {
    const ops = operations(await document())
    const ids = ops.map(({ op }) => op.operationId)
    expect(
      ids.every((id) => /^[a-z][A-Za-z]+$/.test(id ?? '')),
      ids.join(),
    ).toBe(true)
    expect(new Set(ids).size).toBe(ops.length)
    for (const { where, op } of ops) {
      for (const [status, response] of Object.entries(op.responses))
        expect(response.description, `${where} ${status}`).not.toBe('Default Response')
    }
  })

  it('documents the response headers the hooks send: request id, rate limits, Retry-After, WWW-Authenticate', async () => {
    const ops = operations(await document())
    const open = new Set([
      'GET /',
      'GET /certificates/{code}',
      'GET /health',
      'GET /pix/{image}',
      'GET /ready',
      'GET /sdk/amparo-client.tgz',
      'GET /sdk/{file}',
      'POST /stripe/webhooks',
    ])
    for (const { where, op } of ops) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = Object.keys(response.headers ?? {})
        expect(headers, `${where} ${status}`).toContain('X-Request-Id')
        if (status === '401') expect(headers, where).toContain('WWW-Authenticate')
        if (status === '429' || status === '503')
          expect(headers, `${where} ${status}`).toContain('Retry-After')
      }
      // Every partner route and login is under a rate limit; the index, health, readiness and the
      // certificate verification (codes of 160 random bits) and the client package are not.
      expect('429' in op.responses, where).toBe(!open.has(where))
      const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'))?.[1]
      expect(Object.keys(success?.headers ?? {}).includes('RateLimit-Remaining'), where).toBe(
        !open.has(where),
      )
      expect(Object.keys(success?.headers ?? {}).includes('Idempotent-Replayed'), where).toBe(
        /^(POST|PUT|PATCH) /.test(where) && where !== 'POST /auth/login' && where !== 'POST /stripe/webhooks',
      )
    }
  })

  it('sends what it documents: the headers of a 200 and of a 401', async () => {
    const doc = await document()
    await seedCatalog(ctx.db)
    const { token } = await partnerWithToken(ctx.app, ctx.db)
    const cases = [
      { headers: bearer(token), status: '200' },
      { headers: {}, status: '401' },
    ]
    for (const { headers, status } of cases) {
      const response = await ctx.app.inject({ method: 'GET', url: '/brands', headers })
      expect(String(response.statusCode)).toBe(status)
      const documented = Object.keys(doc.paths['/brands']?.get?.responses[status]?.headers ?? {})
      expect(documented.length, status).toBeGreaterThan(1)
      for (const name of documented)
        expect(response.headers[name.toLowerCase()], `${status} ${name}`).toBeDefined()
    }
  })

  it('marks a request body required only when it has a required field', async () => {
    const required = Object.fromEntries(
      operations(await document())
        .filter(({ op }) => op.requestBody)
        .map(({ where, op }) => [where, op.requestBody?.required]),
    )
    expect(required['POST /auth/login']).toBe(false)
    expect(required['POST /subscriptions/{subscriptionId}/cancellation']).toBe(false)
    expect(required['PUT /annual-plans/{id}/cancellation']).toBe(false)
    expect(required['POST /subscriptions']).toBe(true)
    expect(required['POST /customers']).toBe(true)
    // One of `days` and `hours`, exactly: `{}` is refused.
    expect(required['POST /sandbox/clock/advance']).toBe(true)
  })

  it('names the document’s own address (`/`) as the server unless AMPARO_PUBLIC_URL is set', async () => {
    expect((await document()).servers).toEqual([
      { url: '/', description: 'The address this document was fetched from.' },
    ])
    const other = await createTestApp({ env: { AMPARO_PUBLIC_URL: 'https://api.example.com/' } })
    try {
      const response = await other.app.inject({ method: 'GET', url: '/openapi.json' })
      expect(response.json().servers).toEqual([{ url: 'https://api.example.com' }])
    } finally {
      await other.close()
    }
  })

  it('protects every operation with the bearer token except the index, login, health, readiness, certificate verification and the client package', async () => {
    const doc = await document()
    const open = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.entries(ops).map(([m, op]) => ({
          route: `${m.toUpperCase()} ${path}`,
          open: op.security?.length === 0,
        })),
      )
      .filter((o) => o.open)
      .map((o) => o.route)
      .sort()
    expect(open).toEqual([
      'GET /',
      'GET /certificates/{code}',
      'GET /health',
      'GET /ready',
      'GET /sdk/amparo-client.tgz',
      'GET /sdk/{file}',
      'POST /auth/login',
    ])
  })
})

describe('GET /docs', () => {
  it('renders the reference UI without a token', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/docs/' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toContain('text/html')
  })
})
