import fc from 'fast-check'
import { cnpjOf, cpfOf, formatCnpj, formatCpf, luhnDigit } from '../helpers/documents.js'

/**
 * fast-check arbitraries built from the request schemas of the OpenAPI document: values that
 * satisfy a schema (types, required fields, enums, bounds, lengths, patterns and the Brazilian
 * formats), values that violate it, and whole HTTP requests of both kinds for one operation.
 */

export interface JsonSchema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
  default?: unknown
}

export interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie'
  name: string
  required?: boolean
  schema: JsonSchema
}

export interface OperationSpec {
  method: string
  /** OpenAPI form: `/brands/{brandId}`. */
  path: string
  parameters: Parameter[]
  body?: JsonSchema
  /** `security: []`: no token needed. */
  open: boolean
}

/**
 * Realistic values for a field, by its name (`model_id`, `subscriptionId`, `card_number`…) or a
 * body property's dot path (`creditCard.number`); `''` names the whole body, `':path'` all the
 * path parameters together (an installment of that subscription), `':credentials'` an `id:secret`
 * pair for credentials headers.
 */
export type Hints = Record<string, fc.Arbitrary<unknown>>

/** Who calls: an Authorization header that authenticates, and that caller's realistic values. */
export interface Caller {
  authorization: string
  hints: (op: OperationSpec) => Hints
}

export interface FuzzRequest {
  kind: string
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
}

// ---------------------------------------------------------------------------------------------
// Brazilian identifiers, computed independently of the service's code (test/helpers/documents.ts).

const digit = fc.integer({ min: 0, max: 9 })
const digits = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(''))

const notRepeated = (s: string) => ![...s].every((c) => c === s[0])

export const cpfBare = digits(9).map(cpfOf).filter(notRepeated)

const CNPJ_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
export const cnpjBare = fc
  .tuple(fc.boolean(), fc.array(fc.integer({ min: 0, max: 35 }), { minLength: 12, maxLength: 12 }))
  .map(([alphanumeric, picks]) =>
    cnpjOf(picks.map((p) => CNPJ_CHARS[alphanumeric ? p : p % 10] ?? '0').join('')),
  )
  .filter(notRepeated)

/** A document as clients send it: bare, formatted, or (CNPJ) lowercase. */
export const cpf = fc.tuple(cpfBare, fc.boolean()).map(([s, formatted]) => (formatted ? formatCpf(s) : s))
export const cnpj = fc
  .tuple(cnpjBare, fc.constantFrom('bare', 'formatted', 'lower'))
  .map(([s, style]) => (style === 'formatted' ? formatCnpj(s) : style === 'lower' ? s.toLowerCase() : s))

export const imei = fc.tuple(digits(14), fc.boolean()).map(([body, dashed]) => {
  const s = body + luhnDigit(body)
  return dashed ? `${s.slice(0, 2)}-${s.slice(2, 8)}-${s.slice(8, 14)}-${s.slice(14)}` : s
})

/** Luhn-valid card numbers, the sandbox's test cards most of the time. */
export const cardNumber = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '4111111111111111',
      '5555555555554444',
      '4000000000000002',
      '4000000000009995',
      '4000000000000069',
      '4000000000000341',
      '4111 1111 1111 1111',
    ),
  },
  { weight: 1, arbitrary: digits(15).map((body) => body + luhnDigit(body)) },
)
/** `MMYY` or `MM/YY`, mostly in the future. */
export const cardExpiry = fc
  .tuple(
    fc.integer({ min: 1, max: 12 }),
    fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 27, max: 45 }) }, fc.integer({ min: 20, max: 26 })),
    fc.boolean(),
  )
  .map(([m, y, slash]) => `${String(m).padStart(2, '0')}${slash ? '/' : ''}${y}`)

const UF = 'AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' ')

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  cpf,
  cnpj,
  'cpf-or-cnpj': fc.oneof(cpf, cnpj),
  cep: fc.tuple(digits(8), fc.boolean()).map(([s, dash]) => (dash ? `${s.slice(0, 5)}-${s.slice(5)}` : s)),
  'br-state': fc
    .tuple(fc.constantFrom(...UF), fc.boolean())
    .map(([s, lower]) => (lower ? s.toLowerCase() : s)),
  'br-phone': fc
    .tuple(
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 9 }),
      fc.boolean(),
      digits(8),
      fc.constantFrom('bare', 'formatted', 'country'),
    )
    .map(([a, b, mobile, rest, style]) => {
      const area = `${a}${b}`
      const local = mobile ? `9${rest}` : rest
      if (style === 'formatted') return `(${area}) ${local.slice(0, -4)}-${local.slice(-4)}`
      return style === 'country' ? `+55${area}${local}` : area + local
    }),
  imei,
  email: fc.oneof(
    fc.integer({ min: 1, max: 99_999 }).map((n) => `cliente${n}@example.com`),
    fc
      .emailAddress()
      .filter((e) => e.length <= 100 && /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(e)),
  ),
  uri: fc.webUrl(),
  date: fc
    .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
}

// ---------------------------------------------------------------------------------------------
// Values that satisfy a schema.

const typesOf = (schema: JsonSchema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]

/** Text: words mostly, then printable ASCII, sometimes any code point (emoji, controls, NUL). */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const cap = Math.min(maxLength, Math.max(minLength, 40))
  const fits = (s: string) => [...s].length >= minLength && [...s].length <= maxLength
  const words = fc
    .lorem({ maxCount: 4 })
    .map((s) => [...s].slice(0, maxLength).join(''))
    .filter(fits)
  const graphemes = fc
    .string({ minLength, maxLength: cap, unit: 'grapheme' })
    // A grapheme may be several code points: keep whole ones while the schema's count allows.
    .map((s) => [...s].slice(0, maxLength).join(''))
    .filter(fits)
  const ordinary = fc.oneof(
    { weight: 6, arbitrary: words },
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme-ascii' }) },
    { weight: 2, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'binary' }) },
    { weight: 1, arbitrary: graphemes },
  )
  if (!Number.isFinite(maxLength) || maxLength <= cap) return ordinary
  // The boundary: exactly maxLength code points.
  return fc.oneof(
    { weight: 12, arbitrary: ordinary },
    { weight: 1, arbitrary: fc.string({ minLength: maxLength, maxLength, unit: 'binary' }) },
  )
}

function integer(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1_000_000
  const max = schema.maximum ?? 1_000_000
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 100) }) },
    { weight: 2, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  )
}

function number(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -Number.MAX_VALUE
  const max = schema.maximum ?? Number.MAX_VALUE
  return fc
    .oneof(
      // Amounts in cents, as money is sent: at most two decimals.
      {
        weight: 4,
        arbitrary: fc
          .integer({ min: 0, max: 2_000_000 })
          .map((c) => c / 100)
          .filter((n) => n >= min && n <= max),
      },
      { weight: 1, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
      { weight: 1, arbitrary: fc.constantFrom(0, -0.01, 1e21, Number.MAX_SAFE_INTEGER, 5e-324) },
    )
    .filter((n) => n >= min && n <= max)
}

/**
 * A value valid against `schema`. `name` (a parameter's name, or a body property's dot path)
 * picks a realistic value from `hints` some of the time: by full path first, then by last key.
 */
export function validValue(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  const generic = schemaValue(schema, name, hints)
  const hint = hints[name] ?? hints[name.split('.').at(-1) ?? '']
  if (!hint) return generic
  return fc.oneof({ weight: 5, arbitrary: hint }, { weight: 1, arbitrary: generic })
}

function schemaValue(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives) return fc.oneof(...alternatives.map((s) => schemaValue(s, name, hints)))
  const types = typesOf(schema)
  if (types.length > 1) {
    return fc.oneof(
      ...types.map((type) =>
        type === 'null' ? fc.constant(null) : schemaValue({ ...schema, type }, name, hints),
      ),
    )
  }
  switch (types[0]) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return integer(schema)
    case 'number':
      return number(schema)
    case 'string': {
      const max = schema.maxLength ?? Number.POSITIVE_INFINITY
      const min = schema.minLength ?? 0
      const fits = (s: string) => [...s].length >= min && [...s].length <= max
      if (schema.format && FORMATS[schema.format])
        return (FORMATS[schema.format] as fc.Arbitrary<string>).filter(fits)
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits)
      return text(min, max)
    }
    case 'array':
      return fc.array(schema.items ? schemaValue(schema.items, name, hints) : fc.jsonValue(), {
        maxLength: 5,
      })
    case 'object': {
      const properties = schema.properties ?? {}
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, property]) => [
          key,
          validValue(property, name ? `${name}.${key}` : key, hints),
        ]),
      )
      const required = (schema.required ?? []).filter((key) => key in properties)
      return fc.record(model, { requiredKeys: required })
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

// ---------------------------------------------------------------------------------------------
// Values that violate a schema.

const SAMPLES: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 10 }),
  integer: fc.integer(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  object: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
}

/** A JSON value of a type the schema does not allow. */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> | null {
  const allowed = new Set(typesOf(schema))
  if (allowed.size === 0) return null
  if (allowed.has('number')) allowed.add('integer')
  const wrong = Object.keys(SAMPLES).filter((type) => !allowed.has(type))
  return wrong.length ? fc.oneof(...wrong.map((type) => SAMPLES[type] as fc.Arbitrary<unknown>)) : null
}

/** Values that break the schema's own constraints (bounds, lengths, formats, enums). */
function brokenConstraint(schema: JsonSchema): fc.Arbitrary<unknown>[] {
  const broken: fc.Arbitrary<unknown>[] = []
  const types = typesOf(schema)
  if (types.includes('integer') || types.includes('number')) {
    const out: number[] = [1e300, -1e300, 2 ** 53 + 2, -(2 ** 31) - 1]
    if (schema.minimum !== undefined) out.push(schema.minimum - 1, schema.minimum - 0.5)
    if (schema.maximum !== undefined) out.push(schema.maximum + 1, schema.maximum + 0.5)
    if (types.includes('integer')) out.push(1.5, 0.1)
    broken.push(fc.constantFrom(...out))
  }
  if (types.includes('string')) {
    const max = schema.maxLength
    if (max !== undefined) {
      broken.push(
        fc
          .tuple(fc.integer({ min: max + 1, max: max + 300 }), fc.constantFrom('a', 'é', '😀', '9'))
          .map(([n, c]) => c.repeat(n)),
      )
    }
    if ((schema.minLength ?? 0) > 0)
      broken.push(fc.constantFrom('', ...(schema.minLength === 1 ? [] : ['a'])))
    if (schema.format || schema.pattern) broken.push(fc.string({ maxLength: 20, unit: 'binary' }))
  }
  if (schema.enum) {
    broken.push(fc.string({ maxLength: 12 }).filter((s) => !schema.enum?.includes(s)))
  }
  return broken
}

/** A value that does not satisfy `schema` (or, where it has no constraint, random JSON). */
export function invalidValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const options = [wrongType(schema), ...brokenConstraint(schema)].filter(
    (a): a is fc.Arbitrary<unknown> => a !== null,
  )
  return options.length ? fc.oneof(...options) : fc.jsonValue({ maxDepth: 2 })
}

/** Every property of an object schema, nested ones included, as key paths. */
export function propertyPaths(
  schema: JsonSchema,
  prefix: string[] = [],
): { path: string[]; schema: JsonSchema }[] {
  if (!schema.properties) return []
  return Object.entries(schema.properties).flatMap(([key, property]) => [
    { path: [...prefix, key], schema: property },
    ...propertyPaths(property, [...prefix, key]),
  ])
}

function setAt(value: unknown, path: string[], leaf: unknown | typeof REMOVE): unknown {
  const [head, ...rest] = path
  if (head === undefined) return leaf
  const object =
    value && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {}
  const next = setAt(object[head], rest, leaf)
  if (next === REMOVE) delete object[head]
  else object[head] = next
  return object
}
const REMOVE = Symbol('remove')

// ---------------------------------------------------------------------------------------------
// Whole requests.

/** Text that must not be taken for a number, a boolean or an id in a query string or a path. */
const BAD_TEXT = [
  'abc',
  '1.5',
  '',
  '-1',
  '0',
  '1e3',
  '0x10',
  ' 7',
  '7 ',
  '+7',
  '٣',
  '９',
  'NaN',
  'Infinity',
  'true',
  'null',
  '[]',
  '{}',
  '2147483648',
  '99999999999999999999999',
  "1' OR '1'='1",
  '../../etc/passwd',
  '%00',
  '<script>',
]
const badText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BAD_TEXT) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 3000 }).map((n) => 'x'.repeat(n)) },
)

/** Query and path values travel as text. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

function pathSegment(value: string): string {
  return encodeURIComponent(value)
}

function buildQuery(entries: [string, string][], encodeKeys: boolean): string {
  if (entries.length === 0) return ''
  const parts = entries.map(([k, v]) => `${encodeKeys ? encodeURIComponent(k) : k}=${encodeURIComponent(v)}`)
  return `?${parts.join('&')}`
}

interface Parts {
  path: Record<string, string>
  /** Raw path segments (already encoded), for bad encodings. */
  rawPath: Record<string, string>
  query: [string, string][]
  body: unknown
  /** A raw payload instead of `body`, with this content type. */
  raw?: { payload: string; contentType?: string }
  authorization?: string
  headers: Record<string, string | undefined>
}

const IDEMPOTENCY_KEYS = ['fuzz-key-1', 'fuzz-key-2', 'fuzz-key-3']

/** Requests for one operation: valid ones and invalid ones (about 60/40). */
export function requestArbitrary(op: OperationSpec, callers: Caller[]): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path')
  const queryParams = op.parameters.filter((p) => p.in === 'query')
  const writes = op.method === 'post' || op.method === 'put'

  /** A valid request by one caller, with that caller's ids most of the time. */
  function validBy(caller: Caller): fc.Arbitrary<Omit<Parts, 'headers' | 'rawPath'>> {
    const hints = caller.hints(op)
    const separately = fc.record(
      Object.fromEntries(pathParams.map((p) => [p.name, validValue(p.schema, p.name, hints).map(asText)])),
    ) as fc.Arbitrary<Record<string, string>>
    const together = hints[':path'] as fc.Arbitrary<Record<string, unknown>> | undefined
    const path = together
      ? fc.oneof(
          {
            weight: 3,
            arbitrary: together.map((p) =>
              Object.fromEntries(Object.entries(p).map(([k, v]) => [k, asText(v)])),
            ),
          },
          { weight: 1, arbitrary: separately },
        )
      : separately
    // Parameters with a default may be left out, whatever `required` says.
    const query = fc
      .record(
        Object.fromEntries(queryParams.map((p) => [p.name, validValue(p.schema, p.name, hints).map(asText)])),
        {
          requiredKeys: queryParams
            .filter((p) => p.required && p.schema.default === undefined)
            .map((p) => p.name),
        },
      )
      .map((q) => Object.entries(q) as [string, string][])
    const body = op.body ? validValue(op.body, '', hints) : fc.constant(undefined)
    // Operations open to all are called without a token.
    const authorization = fc.constant(op.open ? undefined : caller.authorization)
    return fc.record({ path, query, body, authorization })
  }

  // An Idempotency-Key now and then: a few fixed ones (replays and mismatches) or a fresh one.
  const headers = fc.record({
    'idempotency-key': writes
      ? fc.oneof(
          { weight: 10, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(...IDEMPOTENCY_KEYS) },
          { weight: 2, arbitrary: fc.uuid() },
        )
      : fc.constant(undefined),
    'x-request-id': fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constantFrom('trace-1', 'bad id with spaces', 'x'.repeat(200)) },
    ),
  })

  const valid: fc.Arbitrary<Parts> = fc
    .tuple(fc.oneof(...callers.map(validBy)), headers)
    .map(([p, h]) => ({ ...p, headers: h, rawPath: {} }))

  const mutations: { weight: number; arbitrary: fc.Arbitrary<(p: Parts) => [string, Parts]> }[] = []
  for (const param of pathParams) {
    mutations.push({
      weight: 2,
      arbitrary: fc.oneof(
        fc
          .oneof(badText, invalidValue(param.schema).map(asText))
          .map((bad) => (p: Parts): [string, Parts] => [
            `path ${param.name}`,
            { ...p, path: { ...p.path, [param.name]: bad } },
          ]),
        fc
          .constantFrom('%', '%zz', '%E0%A4%A', '..', '.', '%2F', '%00')
          .map((raw) => (p: Parts): [string, Parts] => [
            `raw path ${param.name}`,
            { ...p, rawPath: { ...p.rawPath, [param.name]: raw } },
          ]),
      ),
    })
  }
  for (const param of queryParams) {
    mutations.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.oneof(badText, invalidValue(param.schema).map(asText)), fc.boolean())
        .map(([bad, twice]) => (p: Parts): [string, Parts] => [
          `query ${param.name}`,
          {
            ...p,
            query: [
              ...p.query.filter(([k]) => k !== param.name || twice),
              [param.name, bad] as [string, string],
            ],
          },
        ]),
    })
  }
  mutations.push({
    weight: 1,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.string({ maxLength: 12 }),
            fc.constantFrom('filter[x]', 'page[size]', 'a[b][c]', '__proto__', 'constructor[prototype]'),
          ),
          badText,
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((extra) => (p: Parts): [string, Parts] => [
        'unknown query',
        { ...p, query: [...p.query, ...extra] },
      ]),
  })
  if (op.body) {
    const paths = propertyPaths(op.body)
    if (paths.length) {
      mutations.push({
        weight: 5,
        arbitrary: fc.constantFrom(...paths).chain(({ path, schema }) =>
          invalidValue(schema).map((bad) => (p: Parts): [string, Parts] => [
            `body ${path.join('.')}`,
            { ...p, body: setAt(p.body, path, bad) },
          ]),
        ),
      })
      mutations.push({
        weight: 2,
        arbitrary: fc.constantFrom(...paths).map(({ path }) => (p: Parts): [string, Parts] => [
          `without ${path.join('.')}`,
          { ...p, body: setAt(p.body, path, REMOVE) },
        ]),
      })
      mutations.push({
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(...paths), fc.string({ maxLength: 60, unit: 'binary' }))
          .map(([{ path }, s]) => (p: Parts): [string, Parts] => [
            `unicode ${path.join('.')}`,
            { ...p, body: setAt(p.body, path, s) },
          ]),
      })
    }
    mutations.push({
      weight: 1,
      arbitrary: fc
        .dictionary(
          fc.oneof(
            fc.string({ maxLength: 10 }),
            fc.constantFrom('id', 'partner_id', 'status', 'constructor', 'prototype'),
          ),
          fc.jsonValue({ maxDepth: 3 }),
          { minKeys: 1, maxKeys: 4 },
        )
        .map((extra) => (p: Parts): [string, Parts] => [
          'unknown fields',
          { ...p, body: { ...(p.body as object), ...extra } },
        ]),
    })
  }
  // Bodies that are not the object the schema describes, or not JSON at all.
  mutations.push({
    weight: op.body ? 2 : 1,
    arbitrary: fc
      .oneof(
        fc.jsonValue({ maxDepth: 3 }).map((v) => ({ payload: JSON.stringify(v) ?? 'null' })),
        fc.constantFrom(
          { payload: '{bad' },
          { payload: '{"a":1,}' },
          { payload: '' },
          { payload: 'null' },
          { payload: '[]' },
          { payload: '"text"' },
          { payload: '{"__proto__":{"polluted":true}}' },
          { payload: '{"constructor":{"prototype":{"polluted":true}}}' },
          { payload: `${'['.repeat(50_000)}${']'.repeat(50_000)}` },
          { payload: `{"a":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}` },
          { payload: '{"a":"\\ud800"}' },
          { payload: `{"a":"${'x'.repeat(BODY_LIMIT + 10)}"}` },
          { payload: '{}', contentType: 'text/plain' },
          { payload: 'a=1', contentType: 'application/x-www-form-urlencoded' },
          { payload: '{}', contentType: 'application/vnd.api+json' },
          { payload: '{}', contentType: 'application/json; charset=utf-8' },
          { payload: '{}', contentType: 'APPLICATION/JSON' },
          { payload: '{}', contentType: 'multipart/form-data; boundary=x' },
        ),
        fc.string({ maxLength: 40, unit: 'binary' }).map((payload) => ({ payload })),
      )
      .map((raw) => (p: Parts): [string, Parts] => ['raw body', { ...p, raw }]),
  })
  if (!op.open) {
    mutations.push({
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            undefined,
            '',
            'Bearer',
            'Bearer ',
            'Basic dXNlcjpwYXNz',
            'bearer x.y.z',
            'Bearer ä',
          ),
          fc.constantFrom(...callers.map((c) => `${c.authorization.slice(0, -3)}abc`)),
          fc.string({ maxLength: 40, unit: 'grapheme-ascii' }).map((s) => `Bearer ${s}`),
        )
        .map((authorization) => (p: Parts): [string, Parts] => ['authorization', { ...p, authorization }]),
    })
  }
  if (op.open) {
    // Credentials sent in headers, where an operation without a token may read them (login's
    // `X-Credentials: base64(id:secret)` and `Authorization: Basic`).
    const pair = fc.oneof(
      callers[0]?.hints(op)[':credentials'] ?? fc.constant('id:secret'),
      fc.string({ maxLength: 40, unit: 'binary' }),
      fc.tuple(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 })).map(([a, b]) => `${a}:${b}`),
    )
    const encoded = fc.oneof(
      { weight: 3, arbitrary: pair.map((s) => Buffer.from(s as string).toString('base64')) },
      { weight: 1, arbitrary: badText },
    )
    mutations.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('x-credentials', 'authorization'), encoded, fc.boolean())
        .map(([header, value, emptyBody]) => (p: Parts): [string, Parts] => [
          `${header} header`,
          header === 'authorization'
            ? { ...p, ...(emptyBody && { body: {} }), authorization: `Basic ${value}` }
            : { ...p, ...(emptyBody && { body: {} }), headers: { ...p.headers, [header]: value } },
        ]),
    })
  }
  if (writes) {
    mutations.push({
      weight: 1,
      arbitrary: fc
        .constantFrom('', ' ', 'has space', 'é', 'x'.repeat(256), 'tab\tkey')
        .map((key) => (p: Parts): [string, Parts] => [
          'idempotency key',
          { ...p, headers: { ...p.headers, 'idempotency-key': key } },
        ]),
    })
  }

  const invalid = fc
    .tuple(valid, fc.array(fc.oneof(...mutations), { minLength: 1, maxLength: 2 }))
    .map(([parts, changes]) =>
      changes.reduce<[string, Parts]>(
        ([kind, p], change) => {
          const [k, next] = change(p)
          return [kind ? `${kind} + ${k}` : k, next]
        },
        ['', parts],
      ),
    )

  return fc
    .oneof(
      { weight: 3, arbitrary: valid.map((p): [string, Parts] => ['valid', p]) },
      { weight: 2, arbitrary: invalid },
    )
    .map(([kind, p]) => toRequest(op, kind, p))
}

const BODY_LIMIT = 1024 * 1024

function toRequest(op: OperationSpec, kind: string, p: Parts): FuzzRequest {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    return p.rawPath[name] ?? pathSegment(p.path[name] ?? '')
  })
  const encodeKeys = p.query.length % 2 === 0
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(p.headers)) if (v !== undefined) headers[k] = v
  if (p.authorization !== undefined) headers.authorization = p.authorization
  let payload: string | undefined
  if (p.raw) {
    payload = p.raw.payload
    headers['content-type'] = p.raw.contentType ?? 'application/json'
  } else if (p.body !== undefined) {
    payload = JSON.stringify(p.body)
    headers['content-type'] = 'application/json'
  }
  return {
    kind,
    method: op.method.toUpperCase(),
    url: path + buildQuery(p.query, encodeKeys),
    headers,
    ...(payload !== undefined && { payload }),
  }
}
