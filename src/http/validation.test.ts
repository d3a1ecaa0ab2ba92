import type { ErrorObject, ValidateFunction } from 'ajv'
import { type TSchema, Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { fieldErrorsFromAjv, validatorCompiler } from './validation.js'

type Part = 'body' | 'querystring' | 'params'

/** Validates `value` the way a route does, and returns the `errors` object the client would get. */
function errorsOf(schema: TSchema, value: unknown, httpPart: Part = 'body') {
  const validate = validatorCompiler({ schema, httpPart, method: 'POST', url: '/' }) as ValidateFunction
  expect(validate(value)).toBe(false)
  return fieldErrorsFromAjv(validate.errors ?? [], httpPart)
}

function ajvError(error: Partial<ErrorObject> & Pick<ErrorObject, 'keyword'>): ErrorObject {
  return { instancePath: '', schemaPath: '#', params: {}, ...error }
}

describe('fieldErrorsFromAjv', () => {
  it('refuses half a surrogate pair, anywhere in a body, and accepts a whole one', () => {
    const schema = Type.Object({ name: Type.String(), tags: Type.Array(Type.String()) })
    expect(errorsOf(schema, { name: 'A\ud800B', tags: ['ok', '\udc00'] })).toEqual({
      name: ['The name field must be valid Unicode text (an unpaired surrogate was sent).'],
      'tags.1': ['The tags.1 field must be valid Unicode text (an unpaired surrogate was sent).'],
    })
    const validate = validatorCompiler({
      schema,
      httpPart: 'body',
      method: 'POST',
      url: '/',
    }) as ValidateFunction
    expect(validate({ name: 'Ana 📱', tags: ['\ud83d\udcf1'] })).toBe(true)
  })

  it('keys a missing nested field by its dot path', () => {
    const schema = Type.Object({
      name: Type.String(),
      address: Type.Object({ zip_code: Type.String(), city: Type.String() }),
    })
    expect(errorsOf(schema, { name: 'Ana', address: { city: 'Recife' } })).toEqual({
      'address.zip_code': ['The address.zip code field is required.'],
    })
  })

  it('reports every missing field, top-level and nested', () => {
    const schema = Type.Object({
      customer_id: Type.Integer(),
      creditCard: Type.Object({ number: Type.String(), cvv: Type.String() }),
    })
    expect(errorsOf(schema, { creditCard: {} })).toEqual({
      customer_id: ['The customer id field is required.'],
      'creditCard.number': ['The creditCard.number field is required.'],
      'creditCard.cvv': ['The creditCard.cvv field is required.'],
    })
  })

  it('explains type errors per expected type', () => {
    const schema = Type.Object({
      name: Type.String(),
      count: Type.Integer(),
      amount: Type.Number(),
      used: Type.Boolean(),
      tags: Type.Array(Type.String()),
      address: Type.Object({}),
    })
    const value = { name: 1, count: 1.5, amount: '10', used: 'yes', tags: 'a', address: [] }
    expect(errorsOf(schema, value)).toEqual({
      name: ['The name field must be a string.'],
      count: ['The count field must be an integer.'],
      amount: ['The amount field must be a number.'],
      used: ['The used field must be true or false.'],
      tags: ['The tags field must be an array.'],
      address: ['The address field must be an object.'],
    })
  })

  it('does not coerce JSON bodies ("10" is not a number)', () => {
    expect(errorsOf(Type.Object({ installments: Type.Integer() }), { installments: '10' })).toEqual({
      installments: ['The installments field must be an integer.'],
    })
  })

  it('names a body that is not an object "body"', () => {
    const schema = Type.Object({ client_id: Type.Optional(Type.String()) })
    for (const value of [[], null, 'str', 42]) {
      expect(errorsOf(schema, value)).toEqual({ body: ['The body field must be an object.'] })
    }
  })

  it('explains length limits; minLength 1 reads as required', () => {
    const schema = Type.Object({
      name: Type.String({ minLength: 1, maxLength: 10 }),
      origin: Type.String({ maxLength: 100 }),
      rg: Type.String({ minLength: 5 }),
    })
    expect(errorsOf(schema, { name: '', origin: 'x'.repeat(101), rg: 'abc' })).toEqual({
      name: ['The name field is required.'],
      origin: ['The origin field must not be greater than 100 characters.'],
      rg: ['The rg field must be at least 5 characters.'],
    })
    expect(errorsOf(schema, { name: 'x'.repeat(11), origin: '', rg: '12345' })).toEqual({
      name: ['The name field must not be greater than 10 characters.'],
    })
  })

  it('explains numeric limits', () => {
    const schema = Type.Object({ installments: Type.Integer({ minimum: 1, maximum: 12 }) })
    expect(errorsOf(schema, { installments: 0 })).toEqual({
      installments: ['The installments field must be at least 1.'],
    })
    expect(errorsOf(schema, { installments: 13 })).toEqual({
      installments: ['The installments field must not be greater than 12.'],
    })
  })

  it('reports an anyOf failure once, as "the selected … is invalid", not its branches', () => {
    const schema = Type.Object({
      payment: Type.Object({
        method: Type.Union([Type.Literal('credit_card'), Type.Literal('slip'), Type.Literal('pix')]),
      }),
    })
    expect(errorsOf(schema, { payment: { method: 'cash' } })).toEqual({
      'payment.method': ['The selected payment.method is invalid.'],
    })
    // The branches' own first error here is a type error; the anyOf message replaces it.
    expect(errorsOf(schema, { payment: { method: 5 } })).toEqual({
      'payment.method': ['The selected payment.method is invalid.'],
    })
  })

  it('reports an enum failure as "the selected … is invalid"', () => {
    const schema = Type.Object({
      gateway: Type.Unsafe<string>({ type: 'string', enum: ['external', 'own'] }),
    })
    expect(errorsOf(schema, { gateway: 'mine' })).toEqual({ gateway: ['The selected gateway is invalid.'] })
  })

  it('keeps the first message when one field breaks several rules', () => {
    const schema = Type.Object({ zip: Type.String({ minLength: 8, pattern: '^[0-9]+$' }) })
    const errors = errorsOf(schema, { zip: 'ab' })
    expect(errors).toEqual({ zip: ['The zip field must be at least 8 characters.'] })
  })

  it('keys array items by index and formats e-mails', () => {
    const schema = Type.Object({
      items: Type.Array(Type.Object({ email: Type.String({ format: 'email' }) })),
    })
    expect(errorsOf(schema, { items: [{ email: 'a@b.co' }, { email: 'nope' }] })).toEqual({
      'items.1.email': ['The items.1.email field must be a valid email address.'],
    })
  })

  describe('query strings', () => {
    const PageQuery = Type.Object({
      page: Type.Integer({ minimum: 1, default: 1 }),
      per_page: Type.Integer({ minimum: 1, maximum: 100, default: 15 }),
      'filter[name]': Type.Optional(Type.String({ maxLength: 5 })),
      model_id: Type.Optional(Type.Integer()),
    })

    it('coerces text and keys errors by the parameter name', () => {
      expect(
        errorsOf(
          PageQuery,
          { page: '0', per_page: '1000', model_id: 'abc', 'filter[name]': 'toolong' },
          'querystring',
        ),
      ).toEqual({
        page: ['The page field must be at least 1.'],
        per_page: ['The per page field must not be greater than 100.'],
        model_id: ['The model id field must be an integer.'],
        'filter[name]': ['The filter[name] field must not be greater than 5 characters.'],
      })
    })

    it('accepts valid text and fills the defaults', () => {
      const validate = validatorCompiler({
        schema: PageQuery,
        httpPart: 'querystring',
        method: 'GET',
        url: '/',
      }) as ValidateFunction
      const query: Record<string, unknown> = { per_page: '20' }
      expect(validate(query)).toBe(true)
      expect(query).toEqual({ page: 1, per_page: 20 })
    })

    it('reports a required parameter by its name', () => {
      const schema = Type.Object({ model_id: Type.Integer() })
      expect(errorsOf(schema, {}, 'querystring')).toEqual({ model_id: ['The model id field is required.'] })
    })

    it('names an error at the root of the query string "query"', () => {
      const error = ajvError({ keyword: 'type', params: { type: 'object' } })
      expect(fieldErrorsFromAjv([error], 'querystring')).toEqual({
        query: ['The query field must be an object.'],
      })
    })
  })

  it('falls back to the context name, or "body", at the root', () => {
    const error = ajvError({ keyword: 'maxProperties', params: { limit: 3 } })
    expect(fieldErrorsFromAjv([error], 'params')).toEqual({
      params: ['The params field must not have more than 3 entries.'],
    })
    expect(fieldErrorsFromAjv([error], undefined)).toEqual({
      body: ['The body field must not have more than 3 entries.'],
    })
  })

  it('unescapes JSON pointer segments and names additional properties', () => {
    const errors = [
      ajvError({ keyword: 'type', instancePath: '/a~1b/c~0d', params: { type: 'string' } }),
      ajvError({
        keyword: 'additionalProperties',
        instancePath: '/meta',
        params: { additionalProperty: 'x' },
      }),
    ]
    expect(fieldErrorsFromAjv(errors, 'body')).toEqual({
      'a/b.c~d': ['The a/b.c~d field must be a string.'],
      'meta.x': ['The meta.x field is prohibited.'],
    })
  })

  it('returns no field for no error', () => {
    expect(fieldErrorsFromAjv([], 'body')).toEqual({})
  })
})
