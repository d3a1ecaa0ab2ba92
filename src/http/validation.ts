import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import {
  normalizeCep,
  normalizeCnpj,
  normalizeCpf,
  normalizeDocument,
  normalizeImei,
  normalizePhone,
  normalizeState,
} from '../shared/documents.js'
import type { FieldErrors } from '../shared/errors.js'
import { BIDI_CONTROL, CONTROL_CHARACTER, LONE_SURROGATE, UNACCEPTABLE_TEXT } from '../shared/text.js'

const common: Options = { allErrors: true, useDefaults: true, removeAdditional: true, strict: false }

// Bodies are JSON and must carry the right types; query strings and paths are text and are
// coerced ("15" → 15), as every HTTP framework does.
/**
 * Brazilian identifiers as JSON Schema formats, so one schema both checks them (check digits
 * included) and documents them in OpenAPI. Values are accepted formatted or bare; services
 * store the normalised form.
 */
const brazilianFormats: Record<string, { valid: (value: string) => boolean; message: string }> = {
  cpf: { valid: (v) => normalizeCpf(v) !== null, message: 'must be a valid CPF' },
  cnpj: { valid: (v) => normalizeCnpj(v) !== null, message: 'must be a valid CNPJ' },
  'cpf-or-cnpj': { valid: (v) => normalizeDocument(v) !== null, message: 'must be a valid CPF or CNPJ' },
  cep: { valid: (v) => normalizeCep(v) !== null, message: 'must be exactly 8 digits' },
  'br-state': { valid: (v) => normalizeState(v) !== null, message: 'must be a Brazilian state code' },
  'br-phone': { valid: (v) => normalizePhone(v) !== null, message: 'must be a phone number with area code' },
  imei: {
    valid: (v) => normalizeImei(v) !== null,
    message: 'must be a valid IMEI: 15 digits, the last one a check digit (Luhn)',
  },
}

const bodyAjv = withFormats(new Ajv({ ...common, coerceTypes: false }))
const textAjv = withFormats(new Ajv({ ...common, coerceTypes: 'array' }))

function withFormats(ajv: Ajv): Ajv {
  addFormats.default(ajv, ['email', 'uri', 'date'])
  for (const [name, { valid }] of Object.entries(brazilianFormats))
    ajv.addFormat(name, { type: 'string', validate: valid })
  return ajv
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return withValidText(schema as JsonSchema, bodyAjv.compile(schema as object), true)
  return strictNumbers(
    schema as JsonObject,
    withValidText(schema as JsonSchema, textAjv.compile(schema as object), false),
  )
}

// Secrets are compared as sent, spaces included.
const UNTRIMMED = new Set(['password', 'client_secret'])
type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema }

/**
 * Before the schema check, one walk over the declared strings (undeclared fields are ignored, and
 * may nest without limit): in a body, spaces around them are dropped, as Laravel's TrimStrings
 * does for the clients written against it (`" SP "` is a state, `" a@x.com "` an e-mail, a length
 * limit counts what is kept; secrets aside); everywhere, text no field may hold is an error.
 */
function withValidText(schema: JsonSchema, validate: ValidateFunction, trim: boolean): ValidateFunction {
  const checked = ((data: unknown) => {
    const found: ErrorObject[] = []
    scrubText(schema, data, '', found, trim)
    const valid = validate(data)
    if (found.length === 0) {
      checked.errors = validate.errors
      return valid
    }
    const rest = (validate.errors ?? []).filter((e) => !found.some((x) => x.instancePath === e.instancePath))
    checked.errors = [...found, ...rest]
    return false
  }) as Validate
  return checked
}

// The declared fields of a schema, listed once: this runs on every request's body, query and path.
type Field = { key: string; property: JsonSchema; pointer: string; untrimmed: boolean }
const fieldsBySchema = new WeakMap<JsonSchema, Field[]>()

function fieldsOf(schema: JsonSchema, properties: Record<string, JsonSchema>): Field[] {
  let fields = fieldsBySchema.get(schema)
  if (!fields) {
    fields = Object.entries(properties).map(([key, property]) => ({
      key,
      property,
      pointer: key.replace(/~/g, '~0').replace(/\//g, '~1'),
      untrimmed: UNTRIMMED.has(key),
    }))
    fieldsBySchema.set(schema, fields)
  }
  return fields
}

function scrubText(schema: JsonSchema, data: unknown, path: string, found: ErrorObject[], trim: boolean) {
  if (typeof data === 'string') {
    checkText(data, path, found)
  } else if (Array.isArray(data) && schema.items) {
    for (let i = 0; i < data.length; i++) {
      if (trim && typeof data[i] === 'string') data[i] = data[i].trim()
      scrubText(schema.items, data[i], `${path}/${i}`, found, trim)
    }
  } else if (data && typeof data === 'object' && schema.properties) {
    const values = data as Record<string, unknown>
    for (const { key, property, pointer, untrimmed } of fieldsOf(schema, schema.properties)) {
      const value = values[key]
      if (typeof value === 'string') {
        const text = trim && !untrimmed ? value.trim() : value
        if (text !== value) values[key] = text
        checkText(text, `${path}/${pointer}`, found)
      } else if (value !== null && typeof value === 'object') {
        scrubText(property, value, `${path}/${pointer}`, found, trim)
      }
    }
  }
}

function checkText(text: string, path: string, found: ErrorObject[]) {
  if (!UNACCEPTABLE_TEXT.test(text)) return
  const keyword = CONTROL_CHARACTER.test(text)
    ? 'controlCharacters'
    : LONE_SURROGATE.test(text)
      ? 'loneSurrogate'
      : BIDI_CONTROL.test(text)
        ? 'bidiControl'
        : null
  if (keyword) found.push({ instancePath: path, schemaPath: '', keyword, params: {}, message: '' })
}

type JsonObject = { properties?: Record<string, { type?: unknown }> }
type Validate = ValidateFunction & ((data: unknown) => boolean)

const DECIMAL: Record<string, RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/ }

/**
 * Ajv coerces text to numbers with JavaScript's rules, so `0x4`, `1e1`, ` 1` and `Infinity`
 * would pass. Query and path integers must be plain decimals; numbers are what JSON calls one
 * (`4500`, `4499.5`, `4.5e3`: the OpenAPI `number` a generated client or fuzzer may send).
 * Anything else is reported as a type error under its own key, before Ajv coerces it.
 */
function strictNumbers(schema: JsonObject, validate: ValidateFunction): ValidateFunction {
  const numeric = Object.entries(schema.properties ?? {}).flatMap(([key, property]) => {
    const type = String(property.type)
    const pattern = DECIMAL[type]
    if (!pattern) return []
    // Absent values and those already typed (defaults) pass; Ajv reports what else is wrong.
    return [{ key, type, plain: (v: unknown) => typeof v !== 'string' || pattern.test(v) }]
  })
  if (numeric.length === 0) return validate
  const strict = ((data: Record<string, unknown> | undefined) => {
    let errors: ErrorObject[] | undefined
    for (const { key, type, plain } of numeric) {
      const value = data?.[key]
      if (Array.isArray(value) ? value.every(plain) : plain(value)) continue
      errors ??= []
      errors.push({ instancePath: `/${key}`, schemaPath: '', keyword: 'type', params: { type }, message: '' })
    }
    const valid = validate(data)
    if (!errors) {
      strict.errors = validate.errors
      return valid
    }
    const reported = errors
    strict.errors = [
      ...reported,
      ...(validate.errors ?? []).filter((e) => !reported.some((x) => x.instancePath === e.instancePath)),
    ]
    return false
  }) as Validate
  return strict
}

/** Turns Ajv's errors into Laravel's `errors` object: dot-path keys, one message each. */
export function fieldErrorsFromAjv(errors: ErrorObject[], context: string | undefined): FieldErrors {
  const result: FieldErrors = {}
  for (const error of errors) {
    const key = keyOf(error, context)
    const message = messageFor(error, key)
    // An anyOf failure explains its branches better than the branches do.
    if (error.keyword === 'anyOf' || !result[key]) result[key] = [message]
  }
  return result
}

function keyOf(error: ErrorObject, context: string | undefined): string {
  const segments = error.instancePath.split('/').slice(1).map(unescapePointer)
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty))
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty))
  return segments.join('.') || (context === 'querystring' ? 'query' : (context ?? 'body'))
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

function messageFor(error: ErrorObject, key: string): string {
  const field = `The ${key.replace(/_/g, ' ')} field`
  const p = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `${field} is required.`
    case 'type':
      return `${field} ${typeMessage(String(p.type))}`
    case 'minimum':
    case 'exclusiveMinimum':
      return `${field} must be at least ${p.limit}.`
    case 'maximum':
    case 'exclusiveMaximum':
      return `${field} must not be greater than ${p.limit}.`
    case 'minLength':
      return Number(p.limit) === 1
        ? `${field} is required.`
        : `${field} must be at least ${p.limit} characters.`
    case 'maxLength':
      return `${field} must not be greater than ${p.limit} characters.`
    case 'minItems':
      return `${field} must have at least ${p.limit} items.`
    case 'maxItems':
      return `${field} must not have more than ${p.limit} items.`
    case 'maxProperties':
      return `${field} must not have more than ${p.limit} entries.`
    case 'format': {
      if (p.format === 'email') return `${field} must be a valid email address.`
      const custom = brazilianFormats[String(p.format)]
      return custom ? `${field} ${custom.message}.` : `${field} format is invalid.`
    }
    case 'pattern':
      return `${field} format is invalid.`
    case 'enum':
    case 'const':
    case 'anyOf':
      return `The selected ${key.replace(/_/g, ' ')} is invalid.`
    case 'additionalProperties':
      return `${field} is prohibited.`
    case 'controlCharacters':
      return `${field} must not contain control characters.`
    case 'loneSurrogate':
      return `${field} must be valid Unicode text (an unpaired surrogate was sent).`
    case 'bidiControl':
      return `${field} must not contain bidirectional control characters.`
    default:
      return `${field} is invalid.`
  }
}

function typeMessage(type: string): string {
  if (type.includes('integer')) return 'must be an integer.'
  if (type.includes('number')) return 'must be a number.'
  if (type.includes('boolean')) return 'must be true or false.'
  if (type.includes('array')) return 'must be an array.'
  if (type.includes('object')) return 'must be an object.'
  if (type.includes('string')) return 'must be a string.'
  return `must be of type ${type}.`
}
