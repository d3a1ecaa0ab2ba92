import { describe, expect, it } from 'vitest'
import { amparo, count, createPartner, json, main, useCliWorld, writeJsonFile } from './helpers/cli.js'

// amparo catalog import and plan create: what a partner sells.

useCliWorld()

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
      // The types the coverage words name, and the claim terms' defaults.
      coverage_types: ['robbery', 'accidental_damage'],
      claim_notice_days: 30,
      max_claims_per_year: 2,
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

  it('refuses a plan whose coverages name no peril, unless --no-claims', async () => {
    const id = await createPartner()
    const annual = ['plan', 'create', '--partner', String(id), '--kind', 'annual', '--annual-rate', '0.11']
    const before = await count(main.db, 'plans')
    const refused = await amparo(...annual, '--name', 'Garantia', '--coverage', 'Garantia estendida')
    expect(refused.code).toBe(2)
    expect(refused.err).toEqual([expect.stringMatching(/^amparo: no coverage type: .*--no-claims$/)])
    expect(await count(main.db, 'plans')).toBe(before)

    const plan = await json(main.env, ...annual, '--name', 'Garantia', '--no-claims')
    expect(plan).toMatchObject({ name: 'Garantia', coverage_types: [] })
    const claimable = await json(main.env, ...annual, '--name', 'Anual', '--coverage-type', 'robbery')
    expect(claimable).toMatchObject({ coverages: ['Roubo'], coverage_types: ['robbery'] })
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
      coverage_types: ['robbery'],
      claim_notice_days: 30,
      max_claims_per_year: 2,
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
