import { userInfo } from 'node:os'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleApp } from '../src/console/app.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { claimOf, claimParty, paidSubscription } from './helpers/claim-decisions-world.js'
import { amparo, app, createPartner, json, main, useCliWorld } from './helpers/cli.js'
import { buildCheckedConsoleApp, CONSOLE_ORIGIN, loginAs } from './helpers/console.js'
import { brazilianTime, parseCsv } from './helpers/csv.js'

// The audit log (README, Operator console: audit): every state-changing CLI command and console
// action appends who, what, which record, before → after; admins read it and export it as CSV.

useCliWorld()

const CLI = `cli:${userInfo().username}`
let console_: ConsoleApp

beforeAll(async () => {
  console_ = await buildCheckedConsoleApp({
    config: main.config,
    db: main.db,
    logger: false,
    staticRoot: null,
  })
  await console_.ready()
  return () => console_.close()
})

const auditRows = (action: string) =>
  main.db.selectFrom('audit_log').selectAll().where('action', '=', action).orderBy('id').execute()

describe('amparo operator', { timeout: 120_000 }, () => {
  it('create prints a one-time password once; the operator signs in with it; audited as cli:<user>', async () => {
    const created = await json<{ operator: { id: number; email: string; role: string }; password: string }>(
      main.env,
      'operator',
      'create',
      '--email',
      'Lia@Amparo.test',
      '--role',
      'adjuster',
    )
    expect(created.operator).toMatchObject({
      email: 'lia@amparo.test',
      role: 'adjuster',
      totp_enrolled: false,
    })
    expect(created.password).toMatch(/^[A-Za-z0-9]{20}$/)
    const signIn = await console_.inject({
      method: 'POST',
      url: '/api/session',
      headers: { origin: CONSOLE_ORIGIN },
      payload: { email: 'lia@amparo.test', password: created.password },
    })
    expect(signIn.json()).toMatchObject({ stage: 'done', operator: { password_change_required: true } })

    const [row] = await auditRows('operator.create')
    expect(row).toMatchObject({
      actor: null,
      actor_label: CLI,
      record_type: 'operator',
      record_id: String(created.operator.id),
      before: null,
      ip: null,
    })
    expect(JSON.parse(row?.after ?? '{}')).toMatchObject({ email: 'lia@amparo.test', role: 'adjuster' })
    expect(row?.after).not.toContain(created.password)
  })

  it('create with --password prints no password; a taken e-mail or a wrong role is refused (exit 2)', async () => {
    const created = await json(
      main.env,
      'operator',
      'create',
      '--email',
      'rui@amparo.test',
      '--role',
      'viewer',
      '--password',
      'twelve chars ok',
    )
    expect(created).not.toHaveProperty('password')
    // A password given is the operator's own: nothing to replace at its first sign-in.
    expect(created).toMatchObject({ operator: { password_change_required: false } })
    const taken = await amparo('operator', 'create', '--email', 'rui@amparo.test', '--role', 'viewer')
    expect(taken.code).toBe(2)
    expect(taken.err[0]).toMatch(/already exists/)
    expect((await amparo('operator', 'create', '--email', 'x@amparo.test', '--role', 'root')).code).toBe(2)
    expect(
      (
        await amparo(
          'operator',
          'create',
          '--email',
          'y@amparo.test',
          '--role',
          'viewer',
          '--password',
          'short',
        )
      ).code,
    ).toBe(2)
  })

  it('reset-password gives a new one-time password and ends sessions; disable ends them and refuses sign-in', async () => {
    const headers = await loginAs(main.db, 'viewer', { email: 'eva@amparo.test' })
    const reset = await json<{ password: string }>(
      main.env,
      'operator',
      'reset-password',
      '--email',
      'eva@amparo.test',
    )
    expect((await console_.inject({ method: 'GET', url: '/api/session', headers })).statusCode).toBe(401)
    const again = await console_.inject({
      method: 'POST',
      url: '/api/session',
      headers: { origin: CONSOLE_ORIGIN },
      payload: { email: 'eva@amparo.test', password: reset.password },
    })
    expect(again.statusCode).toBe(200)
    expect(again.json().operator.password_change_required).toBe(true)
    const cookie = String(again.headers['set-cookie']).split(';')[0] as string

    await json(main.env, 'operator', 'disable', '--email', 'eva@amparo.test')
    expect(
      (await console_.inject({ method: 'GET', url: '/api/session', headers: { cookie } })).statusCode,
    ).toBe(401)
    const refused = await console_.inject({
      method: 'POST',
      url: '/api/session',
      headers: { origin: CONSOLE_ORIGIN },
      payload: { email: 'eva@amparo.test', password: reset.password },
    })
    expect(refused.statusCode).toBe(401)
    expect((await amparo('operator', 'disable', '--email', 'nobody@amparo.test')).code).toBe(2)
    expect((await auditRows('operator.reset_password')).map((r) => r.actor_label)).toEqual([CLI])

    const cleared = await json<{ operator: { totp_enrolled: boolean } }>(
      main.env,
      'operator',
      'reset-totp',
      '--email',
      'eva@amparo.test',
    )
    expect(cleared.operator.totp_enrolled).toBe(false)
    expect((await auditRows('operator.reset_totp')).map((r) => r.actor_label)).toEqual([CLI])
    expect((await amparo('operator', 'reset-totp', '--email', 'nobody@amparo.test')).code).toBe(2)
    expect(JSON.parse((await auditRows('operator.disable'))[0]?.after ?? '{}').disabled_at).toEqual(
      expect.any(String),
    )
  })
})

// Each command opens, migrates and closes its own connection: slow on a busy machine.
describe('the state-changing CLI commands', { timeout: 120_000 }, () => {
  it('credentials issue and revoke, partner gateway, claim approve: one audit row each, never a secret', async () => {
    const partnerId = await createPartner()
    const issued = await json<{ client_id: string; client_secret: string }>(
      main.env,
      'credentials',
      'issue',
      String(partnerId),
    )
    await json(main.env, 'credentials', 'revoke', issued.client_id)
    await json(main.env, 'partner', 'gateway', String(partnerId), 'own')
    const model = await main.db
      .selectFrom('models')
      .select('id')
      .where('name', '=', 'Galaxy S25')
      .executeTakeFirstOrThrow()
    const party = await claimParty(app, main.db, model.id)
    const claimId = await claimOf(main.db, { subscriptionId: await paidSubscription(app, party) })
    await json(main.env, 'claim', 'approve', String(claimId), '--method', 'repair', '--amount', '1500')

    const [issue] = await auditRows('credentials.issue')
    expect(issue).toMatchObject({ actor_label: CLI, record_id: issued.client_id })
    expect(JSON.stringify(await main.db.selectFrom('audit_log').selectAll().execute())).not.toContain(
      issued.client_secret,
    )
    expect((await auditRows('credentials.revoke'))[0]?.record_id).toBe(issued.client_id)
    const gateway = (await auditRows('partner.gateway'))[0]
    expect(JSON.parse(gateway?.before ?? '')).toEqual({ gateway: 'external' })
    expect(JSON.parse(gateway?.after ?? '')).toEqual({ gateway: 'own' })
    const approve = (await auditRows('claim.approve'))[0]
    expect(approve?.record_id).toBe(String(claimId))
    expect(JSON.parse(approve?.before ?? '').status).toBe('under_review')
    expect(JSON.parse(approve?.after ?? '')).toMatchObject({
      status: 'approved',
      decision: { approved_amount: 1500 },
    })
  })

  it('writes nothing to the log when the command is refused', async () => {
    const before = (await main.db.selectFrom('audit_log').select('id').execute()).length
    expect((await amparo('partner', 'gateway', '999999', 'own')).code).toBe(2)
    expect((await amparo('credentials', 'revoke', 'test_nope')).code).toBe(2)
    expect((await main.db.selectFrom('audit_log').select('id').execute()).length).toBe(before)
  })
})

describe('the log itself', () => {
  it('refuses UPDATE and DELETE (append-only, by trigger)', async () => {
    await expect(
      retryingTransaction(main.db, (trx) => trx.updateTable('audit_log').set({ action: 'x' }).execute()),
    ).rejects.toThrow(/append-only/)
    await expect(
      retryingTransaction(main.db, (trx) => trx.deleteFrom('audit_log').execute()),
    ).rejects.toThrow(/append-only/)
  })

  it('records console actions with the operator and address; admins page it and export it as CSV', async () => {
    const admin = await loginAs(main.db, 'admin', { email: 'chefe@amparo.test' })
    const created = await console_.inject({
      method: 'POST',
      url: '/api/operators',
      headers: admin,
      payload: { email: '=HYPERLINK("x")@amparo.test', role: 'viewer' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const id = created.json().operator.id
    const reset = await console_.inject({
      method: 'POST',
      url: `/api/operators/${id}/reset-password`,
      headers: admin,
    })
    expect(reset.json().password).toMatch(/^[A-Za-z0-9]{20}$/)

    const page = await console_.inject({
      method: 'GET',
      url: '/api/audit?per_page=2&operator=chefe@amparo.test',
      headers: admin,
    })
    expect(page.statusCode, page.body).toBe(200)
    expect(page.json()).toMatchObject({ current_page: 1, per_page: 2, total: 2, last_page: 1 })
    expect(page.json().data.map((e: { action: string }) => e.action)).toEqual([
      'operator.reset_password',
      'operator.create',
    ])
    expect(page.json().data[1]).toMatchObject({
      actor_label: 'chefe@amparo.test',
      ip: '127.0.0.1',
      before: null,
    })
    const byAction = await console_.inject({
      method: 'GET',
      url: '/api/audit?action=claim.approve',
      headers: admin,
    })
    expect(byAction.json().total).toBe(1)

    // The export is read back as a spreadsheet in console-exports.test.ts; here: every entry, in words.
    const csv = await console_.inject({ method: 'GET', url: '/api/audit.csv', headers: admin })
    expect(csv.statusCode).toBe(200)
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(csv.headers['content-disposition']).toMatch(/attachment; filename="amparo-auditoria\.csv"/)
    const rows = parseCsv(csv.body.replace(/^\uFEFF/, ''))
    expect(rows[0]).toEqual([
      'Quando',
      'Quem',
      'Ação',
      'Registro',
      'Identificação',
      'Antes',
      'Depois',
      'Endereço IP',
    ])
    const total = (await main.db.selectFrom('audit_log').select('id').execute()).length
    expect(rows).toHaveLength(total + 1)
    // Newest first, each time in the service's zone, the operator by e-mail rather than by row.
    const newest = page.json().data[0]
    const [when, who, action, record, name, before, , ip] = rows[1] ?? []
    expect([when, who, action, record, name, ip]).toEqual([
      brazilianTime(newest.at, main.config.timeZone),
      'chefe@amparo.test',
      'Senha redefinida',
      'Operador',
      `'=hyperlink("x")@amparo.test`,
      '127.0.0.1',
    ])
    expect(JSON.parse(before ?? '')).toMatchObject({ id, email: '=hyperlink("x")@amparo.test' })

    const viewer = await loginAs(main.db, 'viewer')
    expect(
      (await console_.inject({ method: 'GET', url: '/api/audit.csv', headers: viewer })).statusCode,
    ).toBe(403)
    expect((await console_.inject({ method: 'GET', url: '/api/audit', headers: viewer })).statusCode).toBe(
      403,
    )
  })
})
