import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  amparo,
  count,
  createPartner,
  json,
  keys,
  main,
  unmigratedDatabase,
  useCliWorld,
  writeJsonFile,
} from './helpers/cli.js'

// amparo migrate, and how the CLI answers wrong arguments and --help.

useCliWorld()

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
