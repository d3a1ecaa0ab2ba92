import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { run } from '../src/cli/program.js'
import type { Db } from '../src/db/database.js'
import demoCatalog from '../src/demo/demo-catalog.json' with { type: 'json' }
import { verifySecret } from '../src/modules/auth/secret-hash.js'
import { bearer, createCustomer, demoLogins, partnerWithToken, seedCatalog } from './helpers/factories.js'
import { seedPlan, TOTAL_12X } from './helpers/plans.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

// Every command opens its own connection, so SQLite runs on a file (`:memory:` would give each
// command its own empty database); with DATABASE_URL set, the same schema is shared instead.
const dir = mkdtempSync(join(tmpdir(), 'amparo-cli-'))
const sqliteFile = (name: string) => join(dir, `${name}.sqlite`)

let main: TestDatabase
let app: App

beforeAll(async () => {
  main = await createTestDatabase({ sqliteFile: sqliteFile('main') })
  await seedCatalog(main.db)
  app = await buildCheckedApp({ config: main.config, db: main.db, logger: false })
  await app.ready()
})
afterAll(async () => {
  await app?.close()
  await main?.drop()
  rmSync(dir, { recursive: true, force: true })
})

interface Result {
  code: number
  out: string[]
  err: string[]
}

async function amparoOn(env: Record<string, string>, argv: string[]): Promise<Result> {
  const out: string[] = []
  const err: string[] = []
  const code = await run(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out, err }
}

const amparo = (...argv: string[]) => amparoOn(main.env, argv)

/** Runs a `--json` command that must succeed and returns its single JSON object. */
async function json<T = Record<string, unknown>>(env: Record<string, string>, ...argv: string[]): Promise<T> {
  const result = await amparoOn(env, [...argv, '--json'])
  expect(result.err, argv.join(' ')).toEqual([])
  expect(result.code, argv.join(' ')).toBe(0)
  expect(result.out).toHaveLength(1)
  const parsed = JSON.parse(result.out[0] as string)
  expect(typeof parsed).toBe('object')
  expect(Array.isArray(parsed)).toBe(false)
  return parsed as T
}

const keys = (o: object) => Object.keys(o).sort()

function writeJsonFile(name: string, content: unknown): string {
  const file = join(dir, name)
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
  return file
}

let partnerCount = 0
async function createPartner(gateway: 'external' | 'own' = 'external'): Promise<number> {
  partnerCount += 1
  const created = await json<{ id: number }>(
    main.env,
    'partner',
    'create',
    '--name',
    `CLI Partner ${partnerCount}`,
    '--gateway',
    gateway,
  )
  return created.id
}

async function login(payload: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/auth/login', payload })
}

const count = async (
  db: Db,
  table: 'partners' | 'brands' | 'models' | 'plans' | 'credentials' | 'partner_users',
) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('amparo migrate', () => {
  let fresh: { env: Record<string, string>; drop: () => Promise<void> }

  beforeAll(async () => {
    fresh = await unmigratedDatabase()
  })
  afterAll(() => fresh.drop())

  it('applies every migration on an empty database, then nothing', async () => {
    const first = await json<{ applied: string[] }>(fresh.env, 'migrate')
    expect(keys(first)).toEqual(['applied'])
    expect(first.applied).toContain('0001-foundation')

    const again = await json<{ applied: string[] }>(fresh.env, 'migrate')
    expect(again).toEqual({ applied: [] })
  })

  it('reports nothing applied on an already migrated database', async () => {
    expect(await json(main.env, 'migrate')).toEqual({ applied: [] })
  })
})

describe('amparo partner', () => {
  it('create: the partner, its matrix store with the bare CNPJ, every model attributed', async () => {
    const created = await json(
      main.env,
      'partner',
      'create',
      '--name',
      'Loja Centro',
      '--gateway',
      'own',
      '--document',
      '11.222.333/0001-81',
    )
    expect(keys(created)).toEqual(['gateway', 'id', 'name'])
    expect(created).toEqual({ id: expect.any(Number), name: 'Loja Centro', gateway: 'own' })
    const id = created.id as number

    const partner = await main.db
      .selectFrom('partners')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(partner).toMatchObject({ name: 'Loja Centro', gateway: 'own', document: '11222333000181' })

    const stores = await main.db.selectFrom('shopkeepers').selectAll().where('partner_id', '=', id).execute()
    expect(stores).toHaveLength(1)
    expect(stores[0]?.matrix).toBeTruthy()
    expect(stores[0]?.registration_number).toBe('11222333000181')
    expect(stores[0]?.trading_name).toBe('Loja Centro')

    const models = await main.db.selectFrom('models').select('id').orderBy('id').execute()
    expect(models.length).toBeGreaterThan(0)
    const attributed = await main.db
      .selectFrom('partner_models')
      .select('model_id')
      .where('partner_id', '=', id)
      .orderBy('model_id')
      .execute()
    expect(attributed.map((a) => a.model_id)).toEqual(models.map((m) => m.id))
  })

  it('create without --document: a matrix store without registration number', async () => {
    const id = await createPartner('external')
    const store = await main.db
      .selectFrom('shopkeepers')
      .selectAll()
      .where('partner_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(store.matrix).toBeTruthy()
    expect(store.registration_number).toBeNull()
  })

  it('create with a CNPJ another store already has: refused cleanly, nothing written', async () => {
    const document = '44.556.677/0001-86'
    await json(
      main.env,
      'partner',
      'create',
      '--name',
      'Primeira',
      '--gateway',
      'own',
      '--document',
      document,
    )
    const partners = await count(main.db, 'partners')
    const result = await amparo(
      'partner',
      'create',
      '--name',
      'Segunda',
      '--gateway',
      'own',
      '--document',
      document,
    )
    expect(result.code).toBe(2)
    expect(result.err).toEqual(['amparo: The document has already been taken.'])
    expect(await count(main.db, 'partners')).toBe(partners)
  })

  it('gateway: changes the mode', async () => {
    const id = await createPartner('own')
    const changed = await json(main.env, 'partner', 'gateway', String(id), 'external')
    expect(changed).toEqual({ id, gateway: 'external' })
    const row = await main.db
      .selectFrom('partners')
      .select('gateway')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(row.gateway).toBe('external')

    expect(await json(main.env, 'partner', 'gateway', String(id), 'own')).toEqual({ id, gateway: 'own' })
    const back = await main.db
      .selectFrom('partners')
      .select('gateway')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(back.gateway).toBe('own')
  })
})

describe('amparo partner gateway, with subscriptions contracted under the external gateway', () => {
  it('warns on stderr when a switch to own leaves active subscriptions with no way to collect', async () => {
    const { partner, token } = await partnerWithToken(app, main.db, 'external')
    const now = new Date().toISOString()
    const plan = await seedPlan(main.db, partner.id, TOTAL_12X, now)
    const call = (url: string, payload: object) =>
      app.inject({ method: 'POST', url, headers: bearer(token), payload })
    const customer = await createCustomer(app, token)
    const model = await main.db
      .selectFrom('partner_models')
      .innerJoin('models', 'models.id', 'partner_models.model_id')
      .select('models.id')
      .where('partner_models.partner_id', '=', partner.id)
      .where('models.active', '=', true)
      .executeTakeFirstOrThrow()
    const subscription = (
      await call('/subscriptions', { plan_id: plan.id, customer_id: customer.id, model_id: model.id })
    ).json()
    expect(subscription.id, JSON.stringify(subscription)).toBeDefined()
    const [first] = (
      await app.inject({ url: `/subscriptions/${subscription.id}/installments`, headers: bearer(token) })
    ).json()
    const notified = await call(
      `/subscriptions/${subscription.id}/installments/${first.id}/notify-payment`,
      {},
    )
    expect(notified.statusCode, notified.body).toBe(200)

    const result = await amparo('partner', 'gateway', String(partner.id), 'own', '--json')
    expect(result.code).toBe(0)
    expect(result.out.map((line) => JSON.parse(line))).toEqual([{ id: partner.id, gateway: 'own' }])
    expect(result.err).toHaveLength(1)
    expect(result.err[0]).toMatch(
      /^amparo: warning: partner #\d+ has 1 active subscription\(s\) without a card/,
    )
    // Back to external: nothing is stranded, nothing to say.
    expect((await amparo('partner', 'gateway', String(partner.id), 'external')).err).toEqual([])
  })
})

describe('amparo credentials', () => {
  it('issue: a test_ client id and a secret stored only hashed; revoke stops its logins', async () => {
    const id = await createPartner()
    const issued = await json<{ client_id: string; client_secret: string }>(
      main.env,
      'credentials',
      'issue',
      String(id),
    )
    expect(keys(issued)).toEqual(['client_id', 'client_secret'])
    expect(issued.client_id).toMatch(/^test_\w+$/)
    expect(issued.client_secret.length).toBeGreaterThanOrEqual(32)

    const row = await main.db
      .selectFrom('credentials')
      .selectAll()
      .where('client_id', '=', issued.client_id)
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(id)
    expect(row.revoked_at).toBeNull()
    expect(JSON.stringify(row)).not.toContain(issued.client_secret)
    expect(row.secret_hash).toMatch(/^scrypt\$/)
    expect(await verifySecret(issued.client_secret, row.secret_hash)).toBe(true)

    const credentials = { client_id: issued.client_id, client_secret: issued.client_secret }
    expect((await login(credentials)).statusCode).toBe(200)

    const revoked = await json(main.env, 'credentials', 'revoke', issued.client_id)
    expect(revoked).toEqual({ client_id: issued.client_id, revoked: true })
    const after = await main.db
      .selectFrom('credentials')
      .select('revoked_at')
      .where('client_id', '=', issued.client_id)
      .executeTakeFirstOrThrow()
    expect(after.revoked_at).not.toBeNull()
    expect((await login(credentials)).statusCode).toBe(401)

    // Revoking again is harmless.
    expect(await json(main.env, 'credentials', 'revoke', issued.client_id)).toEqual(revoked)
  })

  it('issue twice: two distinct credentials', async () => {
    const id = await createPartner()
    const a = await json<{ client_id: string }>(main.env, 'credentials', 'issue', String(id))
    const b = await json<{ client_id: string }>(main.env, 'credentials', 'issue', String(id))
    expect(a.client_id).not.toBe(b.client_id)
  })
})

describe('amparo user create', () => {
  it('creates a partner user who can log in with email and password', async () => {
    const id = await createPartner()
    const created = await json(
      main.env,
      'user',
      'create',
      String(id),
      '--email',
      'Gerente@Loja.example',
      '--password',
      'senha-forte-123',
    )
    expect(keys(created)).toEqual(['email', 'id'])
    expect(created).toEqual({ id: expect.any(Number), email: 'gerente@loja.example' })

    const row = await main.db
      .selectFrom('partner_users')
      .selectAll()
      .where('id', '=', created.id as number)
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(id)
    expect(row.password_hash).not.toContain('senha-forte-123')
    expect((await login({ email: 'gerente@loja.example', password: 'senha-forte-123' })).statusCode).toBe(200)
    expect((await login({ email: 'gerente@loja.example', password: 'wrong-password' })).statusCode).toBe(401)
  })

  it('gives an existing user of the same partner a new password, and refuses another partner’s email', async () => {
    const [id, other] = [await createPartner(), await createPartner()]
    const create = (partnerId: number, password: string) =>
      amparo('user', 'create', String(partnerId), '--email', 'caixa@loja.example', '--password', password)
    expect((await create(id, 'primeira-senha')).code).toBe(0)
    expect((await create(id, 'segunda-senha')).code).toBe(0)
    expect((await login({ email: 'caixa@loja.example', password: 'segunda-senha' })).statusCode).toBe(200)

    const refused = await create(other, 'senha-do-outro')
    expect(refused.code).toBe(2)
    expect(refused.err.join('\n')).toMatch(/another partner/)
    const row = await main.db
      .selectFrom('partner_users')
      .select('partner_id')
      .where('email', '=', 'caixa@loja.example')
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(id)
    expect((await login({ email: 'caixa@loja.example', password: 'senha-do-outro' })).statusCode).toBe(401)
  })

  it('refuses, in the login’s words, a password the login would refuse', async () => {
    const id = await createPartner()
    const create = (password: string) =>
      amparo('user', 'create', String(id), '--email', 'limite@loja.example', '--password', password)
    for (const password of ['p'.repeat(256), 'senha\x01forte']) {
      const refused = await create(password)
      const answered = await login({ email: 'limite@loja.example', password })
      expect(answered.statusCode).toBe(422)
      expect(refused.code).toBe(2)
      expect(refused.err).toEqual([`amparo: ${answered.json().errors.password[0]}`])
    }
  })

  it('accepts the longest password the login takes, counted in characters, tabs and line breaks included', async () => {
    const id = await createPartner()
    const password = `\t\r\n${'🔐'.repeat(252)}`
    const created = await amparo(
      'user',
      'create',
      String(id),
      '--email',
      'longa@loja.example',
      '--password',
      password,
    )
    expect(created.err).toEqual([])
    expect((await login({ email: 'longa@loja.example', password })).statusCode).toBe(200)
  })
})

describe('amparo catalog import', () => {
  const catalog = (lmi: number) => ({
    brands: [
      {
        name: 'Motorola',
        models: [
          { name: 'Edge 50', default_lmi: lmi },
          { name: 'Moto G85', default_lmi: 1899.9, active: false },
        ],
      },
      { name: 'Xiaomi', models: [{ name: 'Redmi Note 14', default_lmi: 1599 }] },
    ],
  })

  const imported = () =>
    main.db
      .selectFrom('models')
      .innerJoin('brands', 'brands.id', 'models.brand_id')
      .select(['brands.name as brand', 'models.name', 'models.default_lmi', 'models.active'])
      .where('brands.name', 'in', ['Motorola', 'Xiaomi'])
      .orderBy('models.name')
      .execute()

  it('upserts brands and models; a second import updates instead of duplicating', async () => {
    const brandsBefore = await count(main.db, 'brands')
    const modelsBefore = await count(main.db, 'models')

    const first = await json(main.env, 'catalog', 'import', writeJsonFile('catalog-1.json', catalog(3499)))
    expect(first).toEqual({ brands: 2, models: 3 })
    expect(await count(main.db, 'brands')).toBe(brandsBefore + 2)
    expect(await count(main.db, 'models')).toBe(modelsBefore + 3)
    const rows = await imported()
    expect(rows.map((r) => [r.brand, r.name, r.default_lmi, Boolean(r.active)])).toEqual([
      ['Motorola', 'Edge 50', 349_900, true],
      ['Motorola', 'Moto G85', 189_990, false],
      ['Xiaomi', 'Redmi Note 14', 159_900, true],
    ])

    const second = await json(main.env, 'catalog', 'import', writeJsonFile('catalog-2.json', catalog(3299.5)))
    expect(second).toEqual({ brands: 2, models: 3 })
    expect(await count(main.db, 'brands')).toBe(brandsBefore + 2)
    expect(await count(main.db, 'models')).toBe(modelsBefore + 3)
    const updated = await imported()
    expect(updated.find((r) => r.name === 'Edge 50')?.default_lmi).toBe(329_950)
  })

  it('counts a brand or model given twice in one file once; the last entry wins', async () => {
    const twice = {
      brands: [
        { name: 'Twice', models: [{ name: 'One', default_lmi: 100 }] },
        {
          name: 'Twice',
          models: [
            { name: 'One', default_lmi: 200 },
            { name: 'One', default_lmi: 300 },
          ],
        },
      ],
    }
    expect(await json(main.env, 'catalog', 'import', writeJsonFile('twice.json', twice))).toEqual({
      brands: 1,
      models: 1,
    })
    const row = await main.db
      .selectFrom('models')
      .innerJoin('brands', 'brands.id', 'models.brand_id')
      .select('models.default_lmi')
      .where('brands.name', '=', 'Twice')
      .executeTakeFirstOrThrow()
    expect(row.default_lmi).toBe(30_000)
  })

  it('names where a malformed file is wrong', async () => {
    const file = writeJsonFile('where.json', { brands: [{ name: 'X', models: [{ name: 'Y' }] }] })
    const result = await amparo('catalog', 'import', file)
    expect(result.code).toBe(2)
    expect(result.err[0]).toContain('/brands/0/models/0')
  })

  it('names where a default_lmi has more than two decimals', async () => {
    const models = [100, 200, 300, 1.234].map((lmi, i) => ({ name: `M${i}`, default_lmi: lmi }))
    const file = writeJsonFile('lmi-where.json', { brands: [{ name: 'A', models }] })
    const result = await amparo('catalog', 'import', file)
    expect(result.code).toBe(2)
    expect(result.err).toEqual([
      'amparo: Invalid catalog at /brands/0/models/3/default_lmi: must have at most two decimals',
    ])
  })

  it('stores names without the spaces around them', async () => {
    const spaced = { brands: [{ name: '  Spaced  ', models: [{ name: ' Model One ', default_lmi: 100 }] }] }
    expect(await json(main.env, 'catalog', 'import', writeJsonFile('spaced.json', spaced))).toEqual({
      brands: 1,
      models: 1,
    })
    const row = await main.db
      .selectFrom('models')
      .innerJoin('brands', 'brands.id', 'models.brand_id')
      .select(['brands.name as brand', 'models.name'])
      .where('brands.name', '=', 'Spaced')
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ brand: 'Spaced', name: 'Model One' })
  })

  const named = (brand: string, model: string) => ({
    brands: [
      { name: 'Fine', models: [{ name: 'Fine', default_lmi: 100 }] },
      {
        name: brand,
        models: [
          { name: 'Fine', default_lmi: 100 },
          { name: model, default_lmi: 100 },
        ],
      },
    ],
  })

  it.each([
    ['a brand name of spaces', named('   ', 'Fine'), '/brands/1/name'],
    ['a model name of spaces', named('Fine', '  '), '/brands/1/models/1/name'],
    ['a NUL in a brand name', named('Nu\u0000l', 'Fine'), '/brands/1/name'],
    ['a line feed in a model name', named('Fine', 'Two\nlines'), '/brands/1/models/1/name'],
    ['a tab in a model name', named('Fine', 'Tab\tbed'), '/brands/1/models/1/name'],
    ['a unit separator in a brand name', named('Unit\u001fSep', 'Fine'), '/brands/1/name'],
    ['a DEL in a model name', named('Fine', 'Del\u007f'), '/brands/1/models/1/name'],
    ['half a surrogate pair in a brand name', named('Half\ud800', 'Fine'), '/brands/1/name'],
    ['half a surrogate pair in a model name', named('Fine', '\udfffHalf'), '/brands/1/models/1/name'],
    [
      'a right-to-left override in a model name',
      named('Fine', 'Galaxy \u202Egnp'),
      '/brands/1/models/1/name',
    ],
  ])('refuses %s, naming where, and writes nothing', async (_, content, where) => {
    const before = { brands: await count(main.db, 'brands'), models: await count(main.db, 'models') }
    const result = await amparo('catalog', 'import', writeJsonFile('bad-name.json', content), '--json')
    expect(result.code).toBe(2)
    expect(result.out).toEqual([])
    expect(result.err).toHaveLength(1)
    expect(result.err[0]).toContain(where)
    expect({ brands: await count(main.db, 'brands'), models: await count(main.db, 'models') }).toEqual(before)
  })
})

describe('amparo plan create', () => {
  it('creates a subscription plan and prints it', async () => {
    const id = await createPartner()
    const plan = await json(
      main.env,
      'plan',
      'create',
      '--partner',
      String(id),
      '--kind',
      'subscription',
      '--name',
      'Proteção 12x',
      '--installments',
      '12',
      '--monthly-rate',
      '0.012',
      '--franchise-rate',
      '0.15',
      '--coverage',
      'Roubo',
      '--coverage',
      'Quebra acidental',
    )
    expect(plan).toEqual({
      id: expect.any(Number),
      partner_id: id,
      kind: 'subscription',
      name: 'Proteção 12x',
      installments: 12,
      monthly_rate: 0.012,
      franchise_rate: 0.15,
      annual_rate: null,
      used_factor: null,
      coverages: ['Roubo', 'Quebra acidental'],
      is_default: false,
    })
    const row = await main.db
      .selectFrom('plans')
      .selectAll()
      .where('id', '=', plan.id as number)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      partner_id: id,
      monthly_rate_bp: 120,
      franchise_rate_bp: 1500,
      installments: 12,
    })
  })

  it('creates annual plans; a new --default one takes the default from the previous', async () => {
    const id = await createPartner()
    const annual = (name: string) =>
      json(
        main.env,
        'plan',
        'create',
        '--partner',
        String(id),
        '--kind',
        'annual',
        '--name',
        name,
        '--annual-rate',
        '0.11',
        '--used-factor',
        '1.15',
        '--coverage',
        'Roubo',
        '--default',
      )
    const first = await annual('Anual A')
    expect(first).toEqual({
      id: expect.any(Number),
      partner_id: id,
      kind: 'annual',
      name: 'Anual A',
      installments: 1,
      monthly_rate: null,
      franchise_rate: null,
      annual_rate: 0.11,
      used_factor: 1.15,
      coverages: ['Roubo'],
      is_default: true,
    })
    const second = await annual('Anual B')
    expect(second.is_default).toBe(true)
    const rows = await main.db
      .selectFrom('plans')
      .select(['id', 'is_default', 'annual_rate_bp', 'used_factor_bp'])
      .where('partner_id', '=', id)
      .orderBy('id')
      .execute()
    expect(rows.map((r) => [r.id, Boolean(r.is_default), r.annual_rate_bp, r.used_factor_bp])).toEqual([
      [first.id, false, 1100, 11_500],
      [second.id, true, 1100, 11_500],
    ])
  })
})

describe('amparo demo', () => {
  let demo: TestDatabase
  let demoApp: App

  beforeAll(async () => {
    demo = await createTestDatabase({ sqliteFile: sqliteFile('demo') })
    demoApp = await buildCheckedApp({ config: demo.config, db: demo.db, logger: false })
    await demoApp.ready()
  })
  afterAll(async () => {
    await demoApp?.close()
    await demo?.drop()
  })

  type DemoResult = {
    partners: {
      id: number
      name: string
      gateway: string
      client_id: string
      client_secret: string
      email: string
      password: string
    }[]
  }

  const counts = async () => ({
    partners: await count(demo.db, 'partners'),
    brands: await count(demo.db, 'brands'),
    models: await count(demo.db, 'models'),
    plans: await count(demo.db, 'plans'),
  })

  it('loads the catalog and two partners, idempotently, with fresh working credentials', async () => {
    const first = await json<DemoResult>(demo.env, 'demo')
    expect(keys(first)).toEqual(['partners'])
    expect(first.partners).toHaveLength(2)
    expect(first.partners.map((p) => p.gateway).sort()).toEqual(['external', 'own'])
    for (const p of first.partners) {
      expect(keys(p)).toEqual(['client_id', 'client_secret', 'email', 'gateway', 'id', 'name', 'password'])
      expect(p.client_id).toMatch(/^test_/)
      expect(p.client_secret).toBeTruthy()
      expect(p.password.length).toBeGreaterThanOrEqual(8)
    }

    const loaded = await counts()
    expect(loaded.partners).toBe(2)
    expect(loaded.brands).toBeGreaterThanOrEqual(6)
    expect(loaded.models).toBeGreaterThanOrEqual(40)
    expect(loaded.brands).toBe(demoCatalog.brands.length)
    expect(loaded.plans).toBeGreaterThan(0)

    for (const p of first.partners) {
      const attributed = await demo.db
        .selectFrom('partner_models')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('partner_id', '=', p.id)
        .executeTakeFirstOrThrow()
      expect(Number(attributed.n)).toBe(loaded.models)
      const row = await demo.db
        .selectFrom('partners')
        .select('gateway')
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow()
      expect(row.gateway).toBe(p.gateway)
      const kinds = await demo.db
        .selectFrom('plans')
        .select('kind')
        .distinct()
        .where('partner_id', '=', p.id)
        .execute()
      expect(kinds.map((k) => k.kind).sort()).toEqual(['annual', 'subscription'])
    }

    const second = await json<DemoResult>(demo.env, 'demo')
    expect(second.partners.map((p) => [p.id, p.name, p.gateway, p.email])).toEqual(
      first.partners.map((p) => [p.id, p.name, p.gateway, p.email]),
    )
    expect(await counts()).toEqual(loaded)
    for (const [i, p] of second.partners.entries()) {
      expect(p.client_id).not.toBe(first.partners[i]?.client_id)
      expect(p.client_secret).not.toBe(first.partners[i]?.client_secret)
    }

    expect(await demoLogins(demoApp, second.partners)).toEqual([200, 200, 200, 200])
  })

  it("keeps the operator's changes to demo models, and attributes the operator's models", async () => {
    const changes = {
      brands: [
        {
          name: 'Apple',
          models: [
            { name: 'iPhone 16 Pro', default_lmi: 7777 },
            { name: 'iPhone 15', default_lmi: 5499, active: false },
            { name: 'iPhone 17 Prototype', default_lmi: 12_000 },
          ],
        },
      ],
    }
    await json(demo.env, 'catalog', 'import', writeJsonFile('demo-changes.json', changes))
    const apple = () =>
      demo.db
        .selectFrom('models')
        .innerJoin('brands', 'brands.id', 'models.brand_id')
        .select(['models.name', 'models.default_lmi', 'models.active'])
        .where('brands.name', '=', 'Apple')
        .where('models.name', 'in', ['iPhone 16 Pro', 'iPhone 15', 'iPhone 17 Prototype'])
        .orderBy('models.name')
        .execute()
    const before = await counts()

    const again = await json<DemoResult>(demo.env, 'demo')
    expect((await apple()).map((m) => [m.name, m.default_lmi, Boolean(m.active)])).toEqual([
      ['iPhone 15', 549_900, false],
      ['iPhone 16 Pro', 777_700, true],
      ['iPhone 17 Prototype', 1_200_000, true],
    ])
    expect(await counts()).toEqual(before)
    for (const p of again.partners) {
      const attributed = await demo.db
        .selectFrom('partner_models')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('partner_id', '=', p.id)
        .executeTakeFirstOrThrow()
      expect(Number(attributed.n)).toBe(before.models)
    }
    expect(await demoLogins(demoApp, again.partners)).toEqual([200, 200, 200, 200])
  })

  it('prints the gateway a demo partner has, once the operator has changed it', async () => {
    const external = await demo.db
      .selectFrom('partners')
      .select('id')
      .where('gateway', '=', 'external')
      .executeTakeFirstOrThrow()
    await json(demo.env, 'partner', 'gateway', String(external.id), 'own')
    const again = await json<DemoResult>(demo.env, 'demo')
    expect(again.partners.map((p) => [p.id, p.gateway])).toEqual([
      [external.id, 'own'],
      [expect.any(Number), 'own'],
    ])
  })

  it('is refused in production: it would publish live credentials with known passwords', async () => {
    const before = await counts()
    const refused = await amparoOn(
      {
        ...demo.env,
        AMPARO_ENV: 'production',
        AMPARO_PAYMENT_GATEWAY: 'none',
        AMPARO_PUBLIC_URL: 'https://api.example.com',
        // The suite's keys are readable phrases: production refuses them before anything else.
        AMPARO_JWT_KEYS: `k1=${randomBytes(48).toString('base64')}`,
      },
      ['demo', '--json'],
    )
    expect(refused.code).toBe(2)
    expect(refused.out).toEqual([])
    expect(refused.err.join('\n')).toMatch(/amparo demo is refused when AMPARO_ENV=production/)
    expect(await counts()).toEqual(before)
  })
})

describe('wrong arguments', () => {
  let partnerId: number
  const files: Record<string, string> = {}

  beforeAll(async () => {
    partnerId = await createPartner()
    files.invalidJson = writeJsonFile('invalid.json', '{"brands": [')
    files.badLmi = writeJsonFile('bad-lmi.json', {
      brands: [{ name: 'Bad', models: [{ name: 'Half cent', default_lmi: 1.005 }] }],
    })
    files.badShape = writeJsonFile('bad-shape.json', { brands: [{ name: 'NoModels' }] })
    files.hugeLmi = writeJsonFile('huge-lmi.json', {
      brands: [{ name: 'Huge', models: [{ name: 'Past R$ 100 billion', default_lmi: 100_000_000_000.01 }] }],
    })
  })

  const plan = (...extra: string[]) => [
    'plan',
    'create',
    '--partner',
    String(partnerId),
    '--name',
    'X',
    ...extra,
  ]

  /** A subscription plan of 12 installments at these rates, plus `extra` flags. */
  const subscriptionPlan = (monthly: string, franchise: string, ...extra: string[]) =>
    plan(
      '--kind',
      'subscription',
      '--installments',
      '12',
      '--monthly-rate',
      monthly,
      '--franchise-rate',
      franchise,
      ...extra,
    )

  const user = (email: string, password: string) => [
    'user',
    'create',
    String(partnerId),
    '--email',
    email,
    '--password',
    password,
  ]

  const cases: [string, () => string[]][] = [
    ['an unknown command', () => ['frobnicate']],
    ['an unknown subcommand', () => ['partner', 'delete', '1']],
    ['partner create without --name', () => ['partner', 'create', '--gateway', 'own']],
    ['partner create without --gateway', () => ['partner', 'create', '--name', 'N']],
    ['partner create --gateway paypal', () => ['partner', 'create', '--name', 'N', '--gateway', 'paypal']],
    [
      'partner create with an invalid CNPJ',
      () => ['partner', 'create', '--name', 'N', '--gateway', 'own', '--document', '11.222.333/0001-82'],
    ],
    ['partner gateway abc own', () => ['partner', 'gateway', 'abc', 'own']],
    ['partner gateway ID paypal', () => ['partner', 'gateway', String(partnerId), 'paypal']],
    ['partner gateway on an unknown partner', () => ['partner', 'gateway', '999999', 'own']],
    ['credentials issue for an unknown partner', () => ['credentials', 'issue', '999999']],
    ['credentials revoke of an unknown client id', () => ['credentials', 'revoke', 'nope']],
    ['catalog import of a missing file', () => ['catalog', 'import', '/no/such/file']],
    ['catalog import of invalid JSON', () => ['catalog', 'import', files.invalidJson as string]],
    ['catalog import with default_lmi 1.005', () => ['catalog', 'import', files.badLmi as string]],
    ['catalog import of a file without models', () => ['catalog', 'import', files.badShape as string]],
    [
      'catalog import with a default_lmi past R$ 100 billion',
      () => ['catalog', 'import', files.hugeLmi as string],
    ],
    [
      'plan create --kind subscription without --installments',
      () => plan('--kind', 'subscription', '--monthly-rate', '0.01', '--franchise-rate', '0.1'),
    ],
    ['plan create --monthly-rate abc', () => subscriptionPlan('abc', '0.1')],
    [
      'plan create --installments 0',
      () =>
        plan(
          '--kind',
          'subscription',
          '--installments',
          '0',
          '--monthly-rate',
          '0.01',
          '--franchise-rate',
          '0.1',
        ),
    ],
    ['plan create --kind annual without --annual-rate', () => plan('--kind', 'annual')],
    ['plan create --kind weekly', () => plan('--kind', 'weekly')],
    [
      'plan create for an unknown partner',
      () => [
        'plan',
        'create',
        '--partner',
        '999999',
        '--name',
        'X',
        '--kind',
        'annual',
        '--annual-rate',
        '0.1',
      ],
    ],
    [
      'user create with an invalid email',
      () => ['user', 'create', String(partnerId), '--email', 'bad', '--password', 'x'],
    ],
    [
      'partner create --lmi-max-factor 1e9 (past 10 × the default)',
      () => ['partner', 'create', '--name', 'N', '--gateway', 'own', '--lmi-max-factor', '1000000000'],
    ],
    ['plan create --monthly-rate 0 (a free plan)', () => subscriptionPlan('0', '0')],
    ['plan create --monthly-rate 5 (500 % a month)', () => subscriptionPlan('5', '0')],
    ['plan create --annual-rate 99999999', () => plan('--kind', 'annual', '--annual-rate', '99999999')],
    [
      'plan create --used-factor 0',
      () => plan('--kind', 'annual', '--annual-rate', '0.1', '--used-factor', '0'),
    ],
    [
      'plan create --kind annual --installments 12 (a subscription flag)',
      () => plan('--kind', 'annual', '--annual-rate', '0.1', '--installments', '12'),
    ],
    [
      'plan create --kind subscription --annual-rate 0.2 (an annual flag)',
      () => subscriptionPlan('0.01', '0.1', '--annual-rate', '0.2'),
    ],
    [
      'user create with a password of spaces',
      () => ['user', 'create', String(partnerId), '--email', 'ok@loja.example', '--password', '        '],
    ],
    [
      'user create with a short password',
      () => ['user', 'create', String(partnerId), '--email', 'ok@loja.example', '--password', 'short'],
    ],
    [
      'user create with a password of 256 characters (login takes 255)',
      () => user('ok@loja.example', 'p'.repeat(256)),
    ],
    ['user create with a control character in the password', () => user('ok@loja.example', 'senha\x01forte')],
    [
      'user create with an email of 256 characters',
      () => user(`${'a'.repeat(243)}@loja.example`, 'senha-forte'),
    ],
    ['user create with a control character in the email', () => user('ok\x7f@loja.example', 'senha-forte')],
  ]

  it.each(cases)('%s: exit 2, one "amparo:" line on stderr, nothing written', async (_, argv) => {
    const before = {
      partners: await count(main.db, 'partners'),
      plans: await count(main.db, 'plans'),
      credentials: await count(main.db, 'credentials'),
      models: await count(main.db, 'models'),
      users: await count(main.db, 'partner_users'),
    }
    const result = await amparo(...argv(), '--json')
    expect(result.code).toBe(2)
    expect(result.out).toEqual([])
    expect(result.err).toHaveLength(1)
    const line = result.err[0] as string
    expect(line).toMatch(/^amparo: \S/)
    expect(line).not.toContain('\n')
    expect(line).not.toMatch(/^\s*at /m)
    expect({
      partners: await count(main.db, 'partners'),
      plans: await count(main.db, 'plans'),
      credentials: await count(main.db, 'credentials'),
      models: await count(main.db, 'models'),
      users: await count(main.db, 'partner_users'),
    }).toEqual(before)
  })

  it('names the flag of the other kind of plan in its own words', async () => {
    const refused = await amparo(...plan('--kind', 'annual', '--annual-rate', '0.1', '--installments', '12'))
    expect(refused.err).toEqual(['amparo: The installments field does not apply to annual plans.'])
  })

  it('names the problem in the message', async () => {
    expect((await amparo('partner', 'create', '--gateway', 'own')).err[0]).toContain('--name')
    expect((await amparo('partner', 'gateway', '999999', 'own')).err[0]).toMatch(/partner not found/i)
    expect((await amparo('catalog', 'import', '/no/such/file')).err[0]).toContain('/no/such/file')
    expect((await amparo('frobnicate')).err[0]).toContain('frobnicate')
  })

  it('--help exits 0 and prints the commands on stdout', async () => {
    const result = await amparo('--help')
    expect(result.code).toBe(0)
    expect(result.err).toEqual([])
    const help = result.out.join('\n')
    for (const command of ['serve', 'migrate', 'demo', 'partner', 'credentials', 'user', 'catalog', 'plan']) {
      expect(help).toContain(command)
    }
  })

  it('a missing command prints the usage on stderr and exits 2', async () => {
    for (const argv of [[], ['partner']]) {
      const result = await amparo(...argv)
      expect(result.code).toBe(2)
      expect(result.out).toEqual([])
      const usage = result.err.join('\n')
      expect(usage).toMatch(/^Usage: amparo/)
      expect(usage).not.toContain('(outputHelp)')
    }
  })

  it('plan create --help lists its flags', async () => {
    const result = await amparo('plan', 'create', '--help')
    expect(result.code).toBe(0)
    const help = result.out.join('\n')
    for (const flag of [
      '--installments',
      '--monthly-rate',
      '--franchise-rate',
      '--annual-rate',
      '--default',
    ]) {
      expect(help).toContain(flag)
    }
  })
})

/** A database with no tables yet: a new SQLite file, or a new empty PostgreSQL schema. */
async function unmigratedDatabase(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL
  if (!url) {
    return { env: { ...main.env, AMPARO_SQLITE_FILE: sqliteFile('unmigrated') }, drop: async () => {} }
  }
  const { default: pg } = await import('pg')
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  const schema = `test_cli_${Date.now().toString(36)}_${process.pid}`
  await admin(`create schema ${schema}`)
  const separator = url.includes('?') ? '&' : '?'
  return {
    env: {
      ...main.env,
      DATABASE_URL: `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    },
    drop: () => admin(`drop schema ${schema} cascade`),
  }
}
