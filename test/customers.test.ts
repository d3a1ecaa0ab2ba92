import { beforeAll, describe, expect, it } from 'vitest'
import type { Customer } from './helpers/api-types.js'
import type { ErrorBody } from './helpers/bodies.js'
import { bare, cpfOf, formatCpf } from './helpers/documents.js'
import { expectedError, requestIdOf } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken, seedCatalog } from './helpers/world.js'

// 15:04:05 UTC is 12:04:05 in São Paulo (UTC−3 all year since 2019).
const NOW = new Date('2026-11-21T15:04:05.000Z')
const CREATED_AT = '2026-11-21 12:04:05'

const ADDRESS = {
  street: 'Avenida Paulista',
  number: 1000,
  complement: 'Apto 12',
  zipcode: '01310-100',
  neighborhood: 'Bela Vista',
  city: 'São Paulo',
  state: 'sp',
}

const body = (overrides: Record<string, unknown> = {}) => ({
  name: 'Maria da Silva',
  document: '529.982.247-25',
  email: 'maria@example.com',
  phone: '(11) 98765-4321',
  ...overrides,
})

const ctx = useTestApp({ clock: { now: () => NOW } })
beforeAll(async () => {
  await seedCatalog(ctx.db)
})

/** A partner of its own, so that the documents one test registers never collide with another's. */
const newPartner = () => partnerWithToken(ctx.app, ctx.db)

function post(token: string | null, payload: unknown) {
  return ctx.app.inject({
    method: 'POST',
    url: '/customers',
    headers: token ? bearer(token) : {},
    payload: payload as object,
  })
}

function get(token: string | null, document: string) {
  return ctx.app.inject({
    method: 'GET',
    url: `/customers/${document}`,
    headers: token ? bearer(token) : {},
  })
}

async function created(token: string, payload: unknown): Promise<Customer> {
  const response = await post(token, payload)
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as Customer
}

async function refused(token: string, payload: unknown): Promise<Record<string, string[]>> {
  const response = await post(token, payload)
  expect(response.statusCode, response.body).toBe(422)
  const error = response.json() as ErrorBody
  expect(error.errors).toBeDefined()
  const errors = error.errors ?? {}
  // Laravel's message is the first error's text.
  expect(error.message.startsWith(Object.values(errors)[0]?.[0] ?? '')).toBe(true)
  return errors
}

describe('POST /customers', () => {
  let token: string
  beforeAll(async () => {
    ;({ token } = await newPartner())
  })

  it('creates a customer with an address and answers it with bare, canonical values', async () => {
    const customer = await created(token, body({ address: ADDRESS }))
    expect(customer).toEqual({
      id: expect.any(Number),
      name: 'Maria da Silva',
      document: '52998224725',
      email: 'maria@example.com',
      phone: '11987654321',
      address: {
        street: 'Avenida Paulista',
        number: 1000,
        complement: 'Apto 12',
        zipcode: '01310100',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      },
      created_at: CREATED_AT,
    })
    expect(Object.keys(customer)).toEqual([
      'id',
      'name',
      'document',
      'email',
      'phone',
      'address',
      'created_at',
    ])
  })

  it('accepts a bare CPF without address and answers address null', async () => {
    const document = formatCpf(cpfOf('123456789'))
    const customer = await created(token, body({ document: bare(document), phone: '1133334444' }))
    expect(customer.document).toBe(bare(document))
    expect(customer.phone).toBe('1133334444')
    expect(customer.address).toBeNull()
  })

  it('accepts address: null as no address', async () => {
    const customer = await created(token, body({ document: formatCpf(cpfOf('987654321')), address: null }))
    expect(customer.address).toBeNull()
  })

  it('accepts a numeric CNPJ, formatted', async () => {
    const customer = await created(token, body({ document: '11.222.333/0001-81' }))
    expect(customer.document).toBe('11222333000181')
  })

  it.each([
    ['formatted', '12.ABC.345/01DE-35'],
    ['lowercase', '12.abc.345/01de-35'],
    ['bare lowercase', '12abc34501de35'],
  ])('accepts the alphanumeric CNPJ %s and stores it uppercase', async (_, document) => {
    const own = await newPartner()
    const customer = await created(own.token, body({ document }))
    expect(customer.document).toBe('12ABC34501DE35')
    const stored = await ctx.db
      .selectFrom('customers')
      .select(['document', 'document_kind'])
      .where('id', '=', customer.id)
      .executeTakeFirstOrThrow()
    expect(stored).toEqual({ document: '12ABC34501DE35', document_kind: 'cnpj' })
  })

  it.each([
    ['null', null],
    ['absent', undefined],
    ['blank', '   '],
  ])('stores a %s complement as null', async (_, complement) => {
    const own = await newPartner()
    const address = { ...ADDRESS, complement }
    const customer = await created(own.token, body({ address }))
    expect(customer.address).toEqual({ ...ADDRESS, complement: null, zipcode: '01310100', state: 'SP' })
  })

  it('accepts a phone with +55 and a bare zip code, and trims the name', async () => {
    const own = await newPartner()
    const customer = await created(
      own.token,
      body({ name: '  Maria  ', phone: '+55 11 98765-4321', address: { ...ADDRESS, zipcode: '01310100' } }),
    )
    expect(customer.name).toBe('Maria')
    expect(customer.phone).toBe('11987654321')
    expect(customer.address?.zipcode).toBe('01310100')
  })

  it('drops spaces around every field before checking it, as Laravel does (lengths, e-mail)', async () => {
    const own = await newPartner()
    const customer = await created(
      own.token,
      body({
        name: ` ${'M'.repeat(255)}`,
        document: '   529.982.247-25    ',
        email: ' maria@example.com ',
        address: { ...ADDRESS, zipcode: ' 01310-100 ', state: ' SP ' },
      }),
    )
    expect(customer).toMatchObject({
      name: 'M'.repeat(255),
      document: '52998224725',
      email: 'maria@example.com',
      address: { zipcode: '01310100', state: 'SP' },
    })
  })

  it('ignores id, partner_id, created_at and other unknown fields', async () => {
    const own = await newPartner()
    const other = await newPartner()
    const customer = await created(
      own.token,
      body({ id: 999_999, partner_id: other.partner.id, created_at: '2000-01-01 00:00:00', admin: true }),
    )
    expect(customer.id).not.toBe(999_999)
    expect(customer.created_at).toBe(CREATED_AT)
    expect(customer).not.toHaveProperty('admin')
    expect(customer).not.toHaveProperty('partner_id')
    const row = await ctx.db
      .selectFrom('customers')
      .select('partner_id')
      .where('id', '=', customer.id)
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(own.partner.id)
    expect((await get(other.token, '52998224725')).statusCode).toBe(404)
  })
})

describe('POST /customers validation', () => {
  let token: string
  beforeAll(async () => {
    ;({ token } = await newPartner())
  })

  const withAddress = (fields: Record<string, unknown>) => body({ address: { ...ADDRESS, ...fields } })
  const { street: _street, ...addressWithoutStreet } = ADDRESS

  it.each([
    ['a malformed document', 'document', body({ document: 'abc' })],
    ['CPF check digits wrong', 'document', body({ document: '529.982.247-26' })],
    ['a repeated-digit CPF', 'document', body({ document: '111.111.111-11' })],
    ['CNPJ check digits wrong', 'document', body({ document: '11.222.333/0001-82' })],
    ['a missing document', 'document', body({ document: undefined })],
    ['a numeric document', 'document', body({ document: 52998224725 })],
    ['an invalid email', 'email', body({ email: 'maria@' })],
    ['an over-long email', 'email', body({ email: `${'a'.repeat(250)}@example.com` })],
    ['a short phone', 'phone', body({ phone: '98765-4321' })],
    ['a missing name', 'name', body({ name: undefined })],
    ['a blank name', 'name', body({ name: '   ' })],
    ['an over-long name', 'name', body({ name: 'a'.repeat(256) })],
    ['a 7-digit zipcode', 'address.zipcode', withAddress({ zipcode: '0131010' })],
    ['a 9-digit zipcode', 'address.zipcode', withAddress({ zipcode: '013101000' })],
    ['an unknown state', 'address.state', withAddress({ state: 'XX' })],
    ['a text number', 'address.number', withAddress({ number: 'abc' })],
    ['number 0', 'address.number', withAddress({ number: 0 })],
    ['number 1000000', 'address.number', withAddress({ number: 1_000_000 })],
    ['a fractional number', 'address.number', withAddress({ number: 1.5 })],
    ['a missing street', 'address.street', body({ address: addressWithoutStreet })],
    ['a blank city', 'address.city', withAddress({ city: ' ' })],
    ['an over-long neighborhood', 'address.neighborhood', withAddress({ neighborhood: 'b'.repeat(101) })],
    ['an over-long complement', 'address.complement', withAddress({ complement: 'c'.repeat(256) })],
    ['an address that is not an object', 'address', body({ address: 'Avenida Paulista, 1000' })],
  ])('refuses %s with 422 errors.%s', async (_, key, payload) => {
    const errors = await refused(token, payload)
    expect(Object.keys(errors)).toEqual([key])
    expect(errors[key]?.[0]).toMatch(/^The /)
  })

  it('reports every offending field at once', async () => {
    const errors = await refused(
      token,
      body({ email: 'x', phone: '1', address: { ...ADDRESS, zipcode: '1', state: 'XX' } }),
    )
    expect(Object.keys(errors).sort()).toEqual(['address.state', 'address.zipcode', 'email', 'phone'])
  })

  it('stores nothing when refusing', async () => {
    const own = await newPartner()
    await refused(own.token, body({ email: 'not-an-email' }))
    const rows = await ctx.db
      .selectFrom('customers')
      .select('id')
      .where('partner_id', '=', own.partner.id)
      .execute()
    expect(rows).toEqual([])
  })
})

describe('duplicate documents', () => {
  const taken = {
    message: 'The document has already been taken.',
    errors: { document: ['The document has already been taken.'] },
  }

  it.each([
    ['formatted then bare', '529.982.247-25', '52998224725'],
    ['bare then formatted', '11222333000181', '11.222.333/0001-81'],
    ['uppercase then lowercase', '12.ABC.345/01DE-35', '12abc34501de35'],
  ])('refuses the same document for the same partner, %s', async (_, first, second) => {
    const { token } = await newPartner()
    await created(token, body({ document: first }))
    const response = await post(token, body({ document: second, name: 'Someone Else' }))
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(expectedError(response, 'validation_failed', taken))
  })

  it('allows the same document under another partner', async () => {
    const a = await newPartner()
    const b = await newPartner()
    const first = await created(a.token, body())
    const second = await created(b.token, body({ document: '52998224725' }))
    expect(second.id).not.toBe(first.id)
    expect(second.document).toBe(first.document)
  })

  it('gives exactly one 201 to ten simultaneous creations of one document', async () => {
    const { partner, token } = await newPartner()
    const document = formatCpf(cpfOf('390533447'))
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(token, body({ document: i % 2 ? document : bare(document), name: `Racer ${i}` })),
      ),
    )
    const statuses = responses.map((r) => r.statusCode).sort()
    expect(statuses).toEqual([201, ...Array(9).fill(422)])
    for (const response of responses.filter((r) => r.statusCode === 422)) {
      expect(response.json()).toEqual(expectedError(response, 'validation_failed', taken))
    }
    const rows = await ctx.db
      .selectFrom('customers')
      .select('document')
      .where('partner_id', '=', partner.id)
      .execute()
    expect(rows).toEqual([{ document: bare(document) }])
  })
})

describe('GET /customers/{document}', () => {
  let token: string
  let maria: Customer
  let company: Customer

  beforeAll(async () => {
    ;({ token } = await newPartner())
    maria = await created(token, body({ address: ADDRESS }))
    company = await created(token, body({ name: 'Loja ABC', document: '12.ABC.345/01DE-35' }))
  })

  it.each([
    ['bare', '52998224725'],
    ['formatted', '529.982.247-25'],
    ['URL-encoded', encodeURIComponent('529.982.247-25')],
  ])('finds a CPF sent %s', async (_, document) => {
    const response = await get(token, document)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual(maria)
  })

  it.each([
    ['formatted, slash encoded', encodeURIComponent('12.ABC.345/01DE-35')],
    ['formatted, slash as is', '12.ABC.345/01DE-35'],
    ['formatted lowercase, slash as is', '12.abc.345/01de-35'],
    ['bare', '12ABC34501DE35'],
    ['bare lowercase', '12abc34501de35'],
    ['formatted lowercase', encodeURIComponent('12.abc.345/01de-35')],
  ])('finds an alphanumeric CNPJ sent %s', async (_, document) => {
    const response = await get(token, document)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual(company)
  })

  it.each([
    ['an unregistered valid CPF', formatCpf(cpfOf('168995350'))],
    ['invalid check digits', '52998224726'],
    ['a malformed document', 'abc'],
    ['an over-long document', '1'.repeat(40)],
    ['two segments that are no CNPJ', 'abc/def'],
    ['two over-long segments', `${'1'.repeat(20)}/${'2'.repeat(20)}`],
  ])('answers 404 {message} for %s', async (_, document) => {
    const response = await get(token, document)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
  })

  it("answers 404 for another partner's customer, the same as for an unknown one", async () => {
    const other = await newPartner()
    const response = await get(other.token, '52998224725')
    expect(response.statusCode).toBe(404)
    const unknown = await get(token, bare(formatCpf(cpfOf('168995350'))))
    expect(response.json()).toEqual({ ...unknown.json(), request_id: requestIdOf(response) })
  })
})

describe('authentication', () => {
  it('POST /customers without a token answers 401 and stores nothing', async () => {
    const before = await ctx.db.selectFrom('customers').select('id').execute()
    const response = await post(null, body({ document: formatCpf(cpfOf('935411347')) }))
    expect(response.statusCode).toBe(401)
    expect(response.json()).toEqual(
      expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
    )
    expect(response.headers['www-authenticate']).toBe('Bearer')
    expect(await ctx.db.selectFrom('customers').select('id').execute()).toEqual(before)
  })

  it('GET /customers/{document} without a token answers 401', async () => {
    const response = await get(null, '52998224725')
    expect(response.statusCode).toBe(401)
    expect(response.json()).toEqual(
      expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
    )
  })
})
