import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  paidAnnualPlan,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { brazilianTime, csvRecords, parseCsv } from './helpers/csv.js'
import { cpfOf } from './helpers/documents.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, createCustomer, seedCatalog } from './helpers/world.js'

// The console's CSV exports (README, Operator console: exports), read back as Excel set to pt-BR
// reads them: a byte-order mark, `;`, Portuguese headers, money `1234,56`, times `dd/mm/aaaa hh:mm`
// in the service's zone, records by the numbers people know, and no cell a spreadsheet would run.
// Galaxy S25: LMI R$ 6.499,00, franchise 15 % = R$ 974,85.

const HYPERLINK = '=HYPERLINK("http://exemplo.invalid/x";"Clique aqui")'
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

let consoleCtx: ConsoleTestContext
let p: ClaimParty
let other: ClaimParty
let viewer: ConsoleHeaders
let adjuster: ConsoleHeaders
let admin: ConsoleHeaders
let subscriptionId: number
let annualPlanId: number
let approvedClaim: number
let pendingClaim: number

const ctx = useTestApp()
const number = async (claimId: number) =>
  (await ctx.db.selectFrom('claims').select('number').where('id', '=', claimId).executeTakeFirstOrThrow())
    .number
const partnerGet = async (party: ClaimParty, url: string) =>
  (await ctx.app.inject({ method: 'GET', url, headers: bearer(party.token) })).json()
const get = (url: string, headers: ConsoleHeaders = viewer) =>
  consoleCtx.console.inject({ method: 'GET', url, headers })

/** The answer as a spreadsheet reads it, after checking it is one. */
function spreadsheet(response: Awaited<ReturnType<typeof get>>, filename: string) {
  expect(response.statusCode, response.body).toBe(200)
  expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
  expect(response.headers['content-disposition']).toBe(`attachment; filename="${filename}"`)
  expect(response.rawPayload.subarray(0, 3).equals(BOM)).toBe(true)
  const text = response.rawPayload.subarray(3).toString('utf8')
  expect(text.includes('\uFEFF')).toBe(false)
  expect(text.endsWith('\r\n')).toBe(true)
  return { text, rows: parseCsv(text, ';') }
}

beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  const model = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  p = await claimParty(ctx.app, ctx.db, model)
  other = await claimParty(ctx.app, ctx.db, model)
  // A customer whose name is a formula: a spreadsheet must show it, never run it.
  const customer = await createCustomer(ctx.app, p.token, {
    name: HYPERLINK,
    document: cpfOf('318273645'),
    email: 'formula@example.com',
    phone: '11987654321',
  })
  p = { ...p, customerId: customer.id }
  viewer = await consoleCtx.loginAs('viewer')
  adjuster = await consoleCtx.loginAs('adjuster')
  admin = await consoleCtx.loginAs('admin')

  subscriptionId = await paidSubscription(ctx.app, p)
  approvedClaim = await claimOf(ctx.db, { subscriptionId })
  // 23:59 in São Paulo is 02:59 UTC the next day: the file says the day the insured lived.
  await retryingTransaction(ctx.db, (trx) =>
    trx
      .updateTable('claims')
      .set({ occurred_at: '2026-12-08T02:59:00.000Z' })
      .where('id', '=', approvedClaim)
      .execute(),
  )
  const approved = await consoleCtx.console.inject({
    method: 'POST',
    url: `/api/claims/${approvedClaim}/approve`,
    headers: adjuster,
    payload: { settlement_method: 'repair', approved_amount_cents: 150_010 },
  })
  expect(approved.statusCode, approved.body).toBe(200)
  annualPlanId = await paidAnnualPlan(ctx.app, other)
  pendingClaim = await claimOf(ctx.db, { annualPlanId }, 'documents_pending')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const CLAIM_HEADER = [
  'Sinistro',
  'Parceiro',
  'Apólice',
  'Contrato no parceiro',
  'Cliente',
  'Aparelho',
  'IMEI/série',
  'Tipo',
  'Situação',
  'Ocorrido em',
  'Aberto em',
  'Decidido em',
  'Liquidado em',
  'Sinais de fraude',
  'LMI (R$)',
  'Franquia (R$)',
  'Valor aprovado (R$)',
  'Valor a pagar (R$)',
  'Responsável',
]

describe('GET /api/claims.csv', () => {
  it('writes the queue for Excel pt-BR: mark, `;`, Portuguese headers, numbers people know, money and local times', async () => {
    const { text, rows } = spreadsheet(
      await get(`/api/claims.csv?partner_id=${p.partner.id}`),
      'amparo-sinistros.csv',
    )
    expect(text.split('\r\n')[0]).toBe(CLAIM_HEADER.join(';'))
    expect(rows[0]).toEqual(CLAIM_HEADER)
    const records = csvRecords(rows)
    expect(records).toHaveLength(1)
    const [line] = records
    const subscription = await partnerGet(p, `/subscriptions/${subscriptionId}`)
    const stored = await ctx.db
      .selectFrom('claims')
      .select(['created_at', 'decided_at', 'serial_number'])
      .where('id', '=', approvedClaim)
      .executeTakeFirstOrThrow()
    const zone = consoleCtx.config.timeZone
    expect(subscription.policy_number).toMatch(/^AMP-\d{4}-\d{6}$/)
    expect(line).toEqual({
      Sinistro: await number(approvedClaim),
      Parceiro: (
        await ctx.db
          .selectFrom('partners')
          .select('name')
          .where('id', '=', p.partner.id)
          .executeTakeFirstOrThrow()
      ).name,
      Apólice: subscription.policy_number,
      'Contrato no parceiro': `Assinatura ${subscriptionId}`,
      Cliente: `'${HYPERLINK}`,
      Aparelho: 'Galaxy S25',
      'IMEI/série': stored.serial_number,
      Tipo: 'Quebra acidental',
      Situação: 'Aprovado',
      'Ocorrido em': brazilianTime('2026-12-08T02:59:00.000Z', zone),
      'Aberto em': brazilianTime(new Date(stored.created_at).toISOString(), zone),
      'Decidido em': brazilianTime(new Date(stored.decided_at as string).toISOString(), zone),
      'Liquidado em': '',
      'Sinais de fraude': 'Sinistro precoce (até 30 dias do início)',
      'LMI (R$)': '6499,00',
      'Franquia (R$)': '974,85',
      'Valor aprovado (R$)': '1500,10',
      'Valor a pagar (R$)': '525,25',
      Responsável: '',
    })
    if (zone === 'America/Sao_Paulo') expect(line?.['Ocorrido em']).toBe('07/12/2026 23:59')
    // The formula is one quoted cell, its quotes doubled and its `;` kept inside.
    expect(text).toContain(`;"'=HYPERLINK(""http://exemplo.invalid/x"";""Clique aqui"")";`)
  })

  it('names an annual plan’s claim by its policy number and the partner’s id', async () => {
    const { rows } = spreadsheet(
      await get(`/api/claims.csv?partner_id=${other.partner.id}`),
      'amparo-sinistros.csv',
    )
    const plan = await partnerGet(other, `/annual-plans/${annualPlanId}`)
    expect(csvRecords(rows)).toEqual([
      expect.objectContaining({
        Sinistro: await number(pendingClaim),
        Apólice: plan.policy_number,
        'Contrato no parceiro': `Plano anual ${annualPlanId}`,
        Cliente: 'Maria da Silva',
        Situação: 'Aguardando documentos',
        'Valor aprovado (R$)': '',
        'Decidido em': '',
      }),
    ])
  })

  it('takes the queue’s filters', async () => {
    const numbers = async (query: string) =>
      csvRecords(spreadsheet(await get(`/api/claims.csv?${query}`), 'amparo-sinistros.csv').rows).map(
        (r) => r.Sinistro,
      )
    expect(await numbers('status=approved')).toContain(await number(approvedClaim))
    expect(await numbers('status=approved')).not.toContain(await number(pendingClaim))
    expect(await numbers('status=open')).toEqual(
      expect.arrayContaining([await number(approvedClaim), await number(pendingClaim)]),
    )
    expect(await numbers(`partner_id=${other.partner.id}&type=robbery`)).toEqual([])
    expect(await numbers('assignee=me')).toEqual([])
    expect((await get('/api/claims.csv?status=lost')).statusCode).toBe(422)
    expect((await consoleCtx.console.inject({ method: 'GET', url: '/api/claims.csv' })).statusCode).toBe(401)
  })
})

describe('GET /api/audit.csv', () => {
  it('writes each action and record in words, the claim by its number, times in the zone', async () => {
    const { text, rows } = spreadsheet(
      await get('/api/audit.csv?action=claim.approve', admin),
      'amparo-auditoria.csv',
    )
    const header = ['Quando', 'Quem', 'Ação', 'Registro', 'Identificação', 'Antes', 'Depois', 'Endereço IP']
    expect(text.split('\r\n')[0]).toBe(header.join(';'))
    const entry = await ctx.db
      .selectFrom('audit_log')
      .select(['at', 'actor_label'])
      .where('action', '=', 'claim.approve')
      .where('record_id', '=', String(approvedClaim))
      .executeTakeFirstOrThrow()
    const line = csvRecords(rows).find((r) => r.Quem === entry.actor_label)
    expect(line).toMatchObject({
      Quando: brazilianTime(new Date(entry.at).toISOString(), consoleCtx.config.timeZone),
      Ação: 'Sinistro aprovado',
      Registro: 'Sinistro',
      Identificação: await number(approvedClaim),
      'Endereço IP': '127.0.0.1',
    })
    expect(JSON.parse(line?.Depois ?? '')).toMatchObject({ status: 'approved', payable_amount: 52_525 })
  })

  it('neutralises a formula an operator’s e-mail carries', async () => {
    const created = await consoleCtx.console.inject({
      method: 'POST',
      url: '/api/operators',
      headers: admin,
      payload: { email: '=HYPERLINK("x")@amparo.test', role: 'viewer' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const { rows } = spreadsheet(
      await get('/api/audit.csv?action=operator.create', admin),
      'amparo-auditoria.csv',
    )
    expect(csvRecords(rows)).toContainEqual(
      expect.objectContaining({
        Ação: 'Operador criado',
        Registro: 'Operador',
        Identificação: `'=hyperlink("x")@amparo.test`,
      }),
    )
  })
})
