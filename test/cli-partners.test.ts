import { describe, expect, it } from 'vitest'
import { verifySecret } from '../src/modules/auth/secret-hash.js'
import { amparo, app, count, createPartner, json, keys, login, main, useCliWorld } from './helpers/cli.js'
import { bearer, createCustomer, partnerWithToken, seedPlan, TOTAL_12X } from './helpers/world.js'

// amparo partner, partner gateway, credentials and user create: the operator's partner commands.

useCliWorld()

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

  it('notify-insured: switches the messages to its customers off and on, audited', async () => {
    const id = await createPartner('own')
    const stored = async () =>
      Boolean(
        (
          await main.db
            .selectFrom('partners')
            .select('notify_insured')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).notify_insured,
      )
    expect(await stored()).toBe(true)
    expect(await json(main.env, 'partner', 'notify-insured', String(id), 'off')).toEqual({
      id,
      notify_insured: false,
    })
    expect(await stored()).toBe(false)
    const on = await amparo('partner', 'notify-insured', String(id), 'on')
    expect(on.out).toEqual([`Partner #${id}: messages to its customers on.`])
    expect(await stored()).toBe(true)
    const audited = await main.db
      .selectFrom('audit_log')
      .select('action')
      .where('record_type', '=', 'partner')
      .where('record_id', '=', String(id))
      .where('action', '=', 'partner.notify_insured')
      .execute()
    expect(audited).toHaveLength(2)
    expect((await amparo('partner', 'notify-insured', String(id), 'maybe')).code).toBe(2)
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
