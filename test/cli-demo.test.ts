import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import demoCatalog from '../src/demo/demo-catalog.json' with { type: 'json' }
import { amparoOn, count, json, keys, sqliteFile, useCliWorld, writeJsonFile } from './helpers/cli.js'
import { useTestApp } from './helpers/test-app.js'
import { demoLogins } from './helpers/world.js'

// amparo demo: the demo catalog and partners, idempotent, never in production.

useCliWorld()

// Each test runs `amparo demo` (migrations, the catalog, two partners and a contract) in-process:
// 16 s on PostgreSQL on a loaded machine, so the default 20 s is too close.
describe('amparo demo', { timeout: 60_000 }, () => {
  const demo = useTestApp({ sqliteFile: sqliteFile('demo') })

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
    expect(keys(first)).toEqual(['operator', 'partners'])
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

    expect(await demoLogins(demo.app, second.partners)).toEqual([200, 200, 200, 200])
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
    expect(await demoLogins(demo.app, again.partners)).toEqual([200, 200, 200, 200])
  })

  it('prints the gateway a demo partner has, once the operator has changed it', async () => {
    const external = await demo.db
      .selectFrom('partners')
      .select('id')
      .where('gateway', '=', 'external')
      .executeTakeFirstOrThrow()
    // The demo's contract in force (src/demo/demo-contract.ts) has no card on file: warned about.
    const switched = await amparoOn(demo.env, ['partner', 'gateway', String(external.id), 'own', '--json'])
    expect(switched.code).toBe(0)
    expect(switched.err).toEqual([expect.stringContaining('1 active subscription(s) without a card on file')])
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
