import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import type { NewShopkeeperRow } from '../src/modules/shopkeepers/shopkeeper.repository.js'
import { saveShopkeeper } from '../src/modules/shopkeepers/shopkeeper.service.js'
import { ValidationError } from '../src/shared/errors.js'
import type { Store, StoreCreated } from './helpers/api-types.js'
import type { PageBody } from './helpers/bodies.js'
import { BANK, type Json, next, shopkeeperBody, withField } from './helpers/bodies.js'
import { cnpj, cpf, formatCnpj, formatCpf } from './helpers/documents.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken, seedPartner } from './helpers/world.js'

const BANK_VALUES = Object.values(BANK)

const words = (key: string) => key.replace(/_/g, ' ')

describe('shopkeepers', () => {
  let token: string
  let partnerId: number
  let otherToken: string
  let base: string

  const post = (payload: unknown, auth: string | null = token) =>
    ctx.app.inject({
      method: 'POST',
      url: '/shopkeepers',
      headers: auth ? bearer(auth) : {},
      payload: payload as Json,
    })
  const get = (url: string, auth: string | null = token) =>
    ctx.app.inject({ method: 'GET', url, headers: auth ? bearer(auth) : {} })

  async function create(body: Json, auth = token): Promise<StoreCreated> {
    const response = await post(body, auth)
    expect(response.statusCode, response.body).toBe(201)
    return response.json() as StoreCreated
  }

  async function expect422(body: unknown, errors: Record<string, string[]>) {
    const response = await post(body)
    expect(response.statusCode, response.body).toBe(422)
    expect(response.json().errors).toEqual(errors)
    return response
  }

  const newPartner = () => partnerWithToken(ctx.app, ctx.db)

  const ctx = useTestApp()
  beforeAll(async () => {
    const mine = await newPartner()
    token = mine.token
    partnerId = mine.partner.id
    otherToken = (await newPartner()).token
    const page = (await get('/shopkeepers')).json() as PageBody<Store>
    base = page.meta.path.replace(/\/shopkeepers$/, '')
  })

  describe('POST /shopkeepers', () => {
    it('registers a branch from formatted inputs and answers the seed creation shape', async () => {
      const body: Json = {
        ...shopkeeperBody(),
        trading_name: 'Loja Paulista',
        registration_number: '11.222.333/0001-81',
        phone: '+55 (11) 3333-4444',
        address: {
          zip_code: '01310-100',
          street: '  Avenida Paulista ',
          number: '1000',
          neighborhood: 'Bela Vista',
          city: 'São Paulo',
          state: 'sp',
        },
        responsible: {
          name: 'Maria da Silva',
          email: 'Maria.Silva@Loja.Example.COM',
          phone: '(11) 98765-4321',
          registration_number: '529.982.247-25',
        },
      }
      delete body.website
      const response = await post(body)
      expect(response.statusCode, response.body).toBe(201)
      const created = response.json() as StoreCreated
      expect(created).toEqual({
        id: created.id,
        trading_name: 'Loja Paulista',
        registration_number: '11222333000181',
        matrix: false,
        responsible: null,
        meta: { link: `${base}/shopkeepers/${created.id}` },
      })
      expect(Object.keys(created)).toEqual([
        'id',
        'trading_name',
        'registration_number',
        'matrix',
        'responsible',
        'meta',
      ])

      const read = (await get(`/shopkeepers/${created.id}`)).json() as Store
      expect(read).toEqual({
        id: created.id,
        trading_name: 'Loja Paulista',
        registration_number: '11222333000181',
        matrix: false,
        phone: '1133334444',
        website: null,
        address: {
          zip_code: '01310100',
          street: 'Avenida Paulista',
          number: '1000',
          complement: null,
          neighborhood: 'Bela Vista',
          city: 'São Paulo',
          state: 'SP',
        },
        responsible: {
          name: 'Maria da Silva',
          email: 'maria.silva@loja.example.com',
          phone: '11987654321',
          registration_number: '52998224725',
          role: null,
          rg: null,
        },
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        meta: { link: created.meta.link },
      })
    })

    it('stores bare inputs as they are, and the bank data', async () => {
      const body = shopkeeperBody()
      const created = await create(body)
      const read = (await get(`/shopkeepers/${created.id}`)).json() as Store
      expect(read.registration_number).toBe(body.registration_number)
      expect(read.responsible?.registration_number).toBe((body.responsible as Json).registration_number)
      expect(read.address?.zip_code).toBe('01310100')
      expect(read.website).toBe('https://loja.example.com.br')
      expect(read.responsible).toMatchObject({ role: 'Gerente', rg: '12.345.678-9' })

      const row = await ctx.db
        .selectFrom('shopkeepers')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      expect(row).toMatchObject({
        partner_id: partnerId,
        bank_name: BANK.name,
        bank_agency: BANK.agency,
        bank_account: BANK.account,
        bank_account_digit: BANK.account_digit,
      })
      expect(Boolean(row.matrix)).toBe(false)
    })

    it('accepts an alphanumeric CNPJ in any case and stores it uppercase', async () => {
      const created = await create({ ...shopkeeperBody(), registration_number: '12.abc.345/01de-35' })
      expect(created.registration_number).toBe('12ABC34501DE35')
    })

    it('takes null or blank optional fields as none', async () => {
      let body = withField(shopkeeperBody(), 'website', null)
      body = withField(body, 'address.complement', '   ')
      body = withField(body, 'responsible.role', null)
      body = withField(body, 'responsible.rg', '')
      const created = await create(body)
      const read = (await get(`/shopkeepers/${created.id}`)).json() as Store
      expect(read.website).toBeNull()
      expect(read.address?.complement).toBeNull()
      expect(read.responsible).toMatchObject({ role: null, rg: null })
    })

    it('ignores unknown fields: a client cannot make a matrix or pick the id or partner', async () => {
      const body = {
        ...shopkeeperBody(),
        id: 999_999,
        matrix: true,
        partner_id: partnerId + 1,
        created_at: 'x',
      }
      const created = await create(body)
      expect(created.id).not.toBe(999_999)
      expect(created.matrix).toBe(false)
      const row = await ctx.db
        .selectFrom('shopkeepers')
        .select(['partner_id', 'matrix'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      expect(row.partner_id).toBe(partnerId)
      expect(Boolean(row.matrix)).toBe(false)
    })

    it.each([
      'trading_name',
      'registration_number',
      'phone',
      'address',
      'address.zip_code',
      'address.street',
      'address.number',
      'address.neighborhood',
      'address.city',
      'address.state',
      'responsible',
      'responsible.name',
      'responsible.email',
      'responsible.phone',
      'responsible.registration_number',
      'bank',
      'bank.name',
      'bank.agency',
      'bank.account',
      'bank.account_digit',
    ])('requires %s', async (key) => {
      const message = `The ${words(key)} field is required.`
      const response = await expect422(withField(shopkeeperBody(), key, undefined), { [key]: [message] })
      expect(response.json().message).toBe(message)
    })

    it.each([
      'trading_name',
      'address.street',
      'address.number',
      'address.neighborhood',
      'address.city',
      'responsible.name',
      'bank.name',
      'bank.agency',
      'bank.account',
      'bank.account_digit',
    ])('takes an empty or blank %s as missing', async (key) => {
      const errors = { [key]: [`The ${words(key)} field is required.`] }
      await expect422(withField(shopkeeperBody(), key, ''), errors)
      await expect422(withField(shopkeeperBody(), key, '  \t '), errors)
    })

    it('lists every missing field, Laravel style', async () => {
      const response = await expect422(
        {},
        Object.fromEntries(
          ['trading_name', 'registration_number', 'phone', 'address', 'responsible', 'bank'].map((key) => [
            key,
            [`The ${words(key)} field is required.`],
          ]),
        ),
      )
      expect(response.json().message).toBe('The trading name field is required. (and 5 more errors)')
    })

    const textLimits: [string, number][] = [
      ['trading_name', 255],
      ['website', 255],
      ['address.street', 255],
      ['address.number', 20],
      ['address.complement', 255],
      ['address.neighborhood', 100],
      ['address.city', 100],
      ['responsible.name', 255],
      ['responsible.role', 100],
      ['responsible.rg', 20],
      ['bank.name', 255],
      ['bank.agency', 20],
      ['bank.account', 20],
      ['bank.account_digit', 20],
    ]

    it.each(textLimits)('refuses %s longer than %i characters and accepts exactly that', async (key, max) => {
      await expect422(withField(shopkeeperBody(), key, 'é'.repeat(max + 1)), {
        [key]: [`The ${words(key)} field must not be greater than ${max} characters.`],
      })
      const created = await create(withField(shopkeeperBody(), key, 'é'.repeat(max)))
      expect(created.id).toBeGreaterThan(0)
    })

    // Separators are allowed, so a valid number can be padded to any length with spaces.
    const paddedPhone = (length: number) => `11${' '.repeat(length - 11)}987654321`

    it.each(['phone', 'responsible.phone'])('refuses %s longer than 20 characters', async (key) => {
      expect(paddedPhone(21)).toHaveLength(21)
      await expect422(withField(shopkeeperBody(), key, paddedPhone(21)), {
        [key]: [`The ${words(key)} field must not be greater than 20 characters.`],
      })
      const created = await create(withField(shopkeeperBody(), key, paddedPhone(20)))
      const read = (await get(`/shopkeepers/${created.id}`)).json() as Store
      const stored = key === 'phone' ? read.phone : read.responsible?.phone
      expect(stored).toBe('11987654321')
    })

    it.each(['phone', 'responsible.phone'])('refuses %s without an area code', async (key) => {
      for (const value of ['98765-4321', '123', '(01) 98765-4321']) {
        await expect422(withField(shopkeeperBody(), key, value), {
          [key]: [`The ${words(key)} field must be a phone number with area code.`],
        })
      }
    })

    it('refuses an e-mail longer than 255 characters and accepts exactly 255', async () => {
      const email = (length: number) => {
        const domain = `@x${next()}.example.com`
        return `${'a'.repeat(length - domain.length)}${domain}`
      }
      await expect422(withField(shopkeeperBody(), 'responsible.email', email(256)), {
        'responsible.email': ['The responsible.email field must not be greater than 255 characters.'],
      })
      await create(withField(shopkeeperBody(), 'responsible.email', email(255)))
    })

    it.each(['not-an-email', 'a@', '@example.com', 'a b@example.com'])(
      'refuses the e-mail %s',
      async (value) => {
        await expect422(withField(shopkeeperBody(), 'responsible.email', value), {
          'responsible.email': ['The responsible.email field must be a valid email address.'],
        })
      },
    )

    it.each(['0131010', '013101000', '01310-10a', 'ABCDEFGH', ''])(
      'refuses the zip code "%s"',
      async (value) => {
        await expect422(withField(shopkeeperBody(), 'address.zip_code', value), {
          'address.zip_code': ['The address.zip code field must be exactly 8 digits.'],
        })
      },
    )

    it.each(['XX', 'S', 'SPP', 'S1', 'ÇP', ''])('refuses the state "%s"', async (value) => {
      await expect422(withField(shopkeeperBody(), 'address.state', value), {
        'address.state': ['The address.state field must be a Brazilian state code.'],
      })
    })

    it.each([
      '11.222.333/0001-82',
      '11222333000180',
      '00.000.000/0000-00',
      '1122233300018',
      '52998224725',
      '12.ABC.345/01DE-36',
    ])('refuses the CNPJ %s', async (value) => {
      await expect422(withField(shopkeeperBody(), 'registration_number', value), {
        registration_number: ['The registration number field must be a valid CNPJ.'],
      })
    })

    it.each([
      '529.982.247-26',
      '52998224724',
      '111.111.111-11',
      '00000000000',
      '5299822472',
      '11222333000181',
    ])('refuses the CPF %s', async (value) => {
      await expect422(withField(shopkeeperBody(), 'responsible.registration_number', value), {
        'responsible.registration_number': ['The responsible.registration number field must be a valid CPF.'],
      })
    })

    it('refuses values of the wrong type', async () => {
      let body = withField(shopkeeperBody(), 'registration_number', 11222333000181)
      body = withField(body, 'address.number', 1000)
      body = withField(body, 'bank', 'Banco')
      await expect422(body, {
        registration_number: ['The registration number field must be a string.'],
        'address.number': ['The address.number field must be a string.'],
        bank: ['The bank field must be an object.'],
      })
    })
  })

  describe('uniqueness across the service', () => {
    let taken: Json

    beforeAll(async () => {
      taken = shopkeeperBody()
      await create(taken, otherToken)
    })

    const takenOf = (path: string) => {
      const [group, key] = path.split('.') as [string, string | undefined]
      return key ? (taken[group] as Json)[key] : taken[group]
    }

    it('refuses a CNPJ another partner registered, even formatted', async () => {
      const value = formatCnpj(takenOf('registration_number') as string)
      await expect422(withField(shopkeeperBody(), 'registration_number', value), {
        registration_number: ['The registration number has already been taken.'],
      })
    })

    it("refuses a responsible's e-mail another partner registered, in any case", async () => {
      const value = (takenOf('responsible.email') as string).toUpperCase()
      await expect422(withField(shopkeeperBody(), 'responsible.email', value), {
        'responsible.email': ['The responsible.email has already been taken.'],
      })
    })

    it("refuses a responsible's CPF another partner registered, even formatted", async () => {
      const value = formatCpf(takenOf('responsible.registration_number') as string)
      await expect422(withField(shopkeeperBody(), 'responsible.registration_number', value), {
        'responsible.registration_number': ['The responsible.registration number has already been taken.'],
      })
    })

    it('names every taken field at once', async () => {
      const response = await expect422(structuredClone(taken), {
        registration_number: ['The registration number has already been taken.'],
        'responsible.email': ['The responsible.email has already been taken.'],
        'responsible.registration_number': ['The responsible.registration number has already been taken.'],
      })
      expect(response.json().message).toBe(
        'The registration number has already been taken. (and 2 more errors)',
      )
    })

    it("refuses a partner's own CNPJ, which its matrix store holds", async () => {
      const document = cnpj(90_000)
      await seedPartner(ctx.db, { name: 'Documented', gateway: 'external', document: formatCnpj(document) })
      await expect422(withField(shopkeeperBody(), 'registration_number', document), {
        registration_number: ['The registration number has already been taken.'],
      })
    })

    // The pre-check answers the cases above; these reach the constraints themselves, as the loser
    // of a race does, and check that each violation is reported under its own field on this database.
    it.each([
      ['registration_number', 'registration_number'],
      ['responsible_email', 'responsible.email'],
      ['responsible_registration_number', 'responsible.registration_number'],
    ] as const)('maps a violation of the %s constraint to %s', async (column, key) => {
      const n = next()
      const row: NewShopkeeperRow = {
        partner_id: partnerId,
        trading_name: 'Race',
        registration_number: cnpj(n),
        phone: '1133334444',
        website: null,
        zip_code: '01310100',
        street: 'Rua',
        number: '1',
        complement: null,
        neighborhood: 'Centro',
        city: 'Recife',
        state: 'PE',
        responsible_name: 'Ana',
        responsible_email: `race${n}@example.com`,
        responsible_phone: '81987654321',
        responsible_registration_number: cpf(500_000 + n),
        responsible_role: null,
        responsible_rg: null,
        bank_name: 'B',
        bank_agency: '1',
        bank_account: '2',
        bank_account_digit: '3',
        created_at: new Date().toISOString(),
      }
      const existing = {
        registration_number: takenOf('registration_number'),
        responsible_email: takenOf('responsible.email'),
        responsible_registration_number: takenOf('responsible.registration_number'),
      }
      const duplicate = { ...row, [column]: existing[column] }
      const error = await retryingTransaction(ctx.db, (trx) => saveShopkeeper(trx, duplicate)).then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(ValidationError)
      expect((error as ValidationError).errors).toEqual({
        [key]: [`The ${words(key)} has already been taken.`],
      })
      const stored = await ctx.db
        .selectFrom('shopkeepers')
        .select('id')
        .where('trading_name', '=', 'Race')
        .execute()
      expect(stored).toEqual([])
    })

    it('lets exactly one of 10 simultaneous registrations of one CNPJ win; the rest get 422, never 500', async () => {
      const document = cnpj(80_000)
      const bodies = Array.from({ length: 10 }, () =>
        withField(shopkeeperBody(), 'registration_number', document),
      )
      const responses = await Promise.all(bodies.map((body) => post(body)))
      const statuses = responses.map((r) => r.statusCode)
      expect(statuses.filter((s) => s === 201)).toHaveLength(1)
      expect(statuses.filter((s) => s === 422)).toHaveLength(9)
      for (const response of responses.filter((r) => r.statusCode === 422)) {
        expect(response.json()).toEqual(
          expectedError(response, 'validation_failed', {
            message: 'The registration number has already been taken.',
            errors: { registration_number: ['The registration number has already been taken.'] },
          }),
        )
      }
      const rows = await ctx.db
        .selectFrom('shopkeepers')
        .select('id')
        .where('registration_number', '=', document)
        .execute()
      expect(rows).toHaveLength(1)
      const winner = responses.find((r) => r.statusCode === 201)
      expect(rows[0]?.id).toBe((winner?.json() as StoreCreated | undefined)?.id)
    })
  })

  describe('GET /shopkeepers', () => {
    it("lists the partner's matrix first, then its branches, and nothing of other partners", async () => {
      const own = await newPartner()
      const other = await newPartner()
      const first = await create(shopkeeperBody(), own.token)
      const second = await create(shopkeeperBody(), own.token)
      const foreign = await create(shopkeeperBody(), other.token)
      const matrix = await ctx.db
        .selectFrom('shopkeepers')
        .select(['id', 'trading_name'])
        .where('partner_id', '=', own.partner.id)
        .where('matrix', '=', true)
        .executeTakeFirstOrThrow()
      // Give the matrix the highest id, so that only "matrix first" can put it in front.
      const matrixId = foreign.id + 1_000_000
      await retryingTransaction(ctx.db, (trx) =>
        trx.updateTable('shopkeepers').set({ id: matrixId }).where('id', '=', matrix.id).execute(),
      )

      const response = await get('/shopkeepers', own.token)
      expect(response.statusCode).toBe(200)
      const page = response.json() as PageBody<Store>
      expect(page.data.map((s) => [s.id, s.matrix])).toEqual([
        [matrixId, true],
        [first.id, false],
        [second.id, false],
      ])
      expect(page.meta).toMatchObject({ current_page: 1, from: 1, to: 3, total: 3, per_page: 15 })
      expect(page.data[0]).toEqual({
        id: matrixId,
        trading_name: matrix.trading_name,
        registration_number: null,
        matrix: true,
        phone: null,
        website: null,
        address: null,
        responsible: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        meta: { link: `${base}/shopkeepers/${matrixId}` },
      })
      expect(page.data[1]).toEqual((await get(`/shopkeepers/${first.id}`, own.token)).json())

      const paged = (await get('/shopkeepers?per_page=1&page=2', own.token)).json() as PageBody<Store>
      expect(paged.data.map((s) => s.id)).toEqual([first.id])
      expect(paged.meta).toMatchObject({ current_page: 2, from: 2, to: 2, total: 3 })
      expect(paged.links.next).toBe(`${base}/shopkeepers?per_page=1&page=3`)

      const others = (await get('/shopkeepers', other.token)).json() as PageBody<Store>
      expect(others.data.map((s) => s.id)).not.toContain(first.id)
      expect(others.data.filter((s) => !s.matrix).map((s) => s.id)).toEqual([foreign.id])
    })

    it('shows the CNPJ of a matrix registered with one', async () => {
      const document = cnpj(70_000)
      const { token: partnerToken } = await partnerWithToken(ctx.app, ctx.db, {
        name: 'Matriz SA',
        gateway: 'own',
        document,
      })
      const page = (await get('/shopkeepers', partnerToken)).json() as PageBody<Store>
      expect(page.data).toHaveLength(1)
      expect(page.data[0]).toMatchObject({
        trading_name: 'Matriz SA',
        registration_number: document,
        matrix: true,
      })
    })

    it.each(['per_page=0', 'per_page=101', 'page=0', 'page=abc'])('refuses %s with 422', async (query) => {
      const response = await get(`/shopkeepers?${query}`)
      expect(response.statusCode).toBe(422)
      expect(Object.keys(response.json().errors)).toEqual([query.split('=')[0]])
    })
  })

  describe('GET /shopkeepers/{id}', () => {
    it("returns the partner's own matrix store", async () => {
      const page = (await get('/shopkeepers?per_page=1')).json() as PageBody<Store>
      const matrix = page.data[0] as Store
      expect(matrix.matrix).toBe(true)
      const response = await get(`/shopkeepers/${matrix.id}`)
      expect(response.statusCode).toBe(200)
      expect(response.json()).toEqual(matrix)
    })

    it("answers 404 for another partner's branch or matrix, as for an unknown id", async () => {
      const foreign = await create(shopkeeperBody(), otherToken)
      const foreignPage = (await get('/shopkeepers', otherToken)).json() as PageBody<Store>
      const foreignMatrix = foreignPage.data.find((s) => s.matrix) as Store
      expect((await get(`/shopkeepers/${foreign.id}`, otherToken)).statusCode).toBe(200)
      for (const id of [foreign.id, foreignMatrix.id, 987_654, 'abc', '99999999999']) {
        const response = await get(`/shopkeepers/${id}`)
        expect(response.statusCode, String(id)).toBe(404)
        expect(response.json()).toEqual(
          expectedError(response, 'not_found', {
            message: typeof id === 'number' ? 'Shopkeeper not found.' : expect.any(String),
          }),
        )
      }
    })
  })

  describe('bank data', () => {
    it('appears in no response: creation, retrieval or list', async () => {
      const created = await post(shopkeeperBody())
      expect(created.statusCode).toBe(201)
      const id = (created.json() as StoreCreated).id
      const bodies = [
        created.body,
        (await get(`/shopkeepers/${id}`)).body,
        (await get('/shopkeepers?per_page=100')).body,
      ]
      // Guard against a vacuous pass: the list must contain the branch just created.
      expect(bodies[2]).toContain(`"id":${id},`)
      for (const text of bodies) {
        for (const value of BANK_VALUES) expect(text).not.toContain(value)
        expect(text).not.toMatch(/"bank/)
        expect(text).not.toContain('account')
      }
    })
  })

  describe('authentication', () => {
    it.each([
      ['POST', '/shopkeepers'],
      ['GET', '/shopkeepers'],
      ['GET', '/shopkeepers/1'],
    ] as const)('%s %s without a token answers 401', async (method, url) => {
      const response = await ctx.app.inject({
        method,
        url,
        ...(method === 'POST' && { payload: shopkeeperBody() }),
      })
      expect(response.statusCode).toBe(401)
      expect(response.json()).toEqual(
        expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
      )
      expect(response.headers['www-authenticate']).toBe('Bearer')
    })

    it('checks the token before the body', async () => {
      const response = await post({}, null)
      expect(response.statusCode).toBe(401)
    })
  })
})
