import { tmpdir } from 'node:os'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { retryingTransaction } from '../../src/db/transaction.js'
import { queueSignInMessage } from '../../src/modules/messages/message.service.js'
import { systemClock } from '../../src/shared/time.js'
import { deliverMessagesOnce } from '../../src/worker/messages.job.js'
import { customerBody, uniqueImei } from '../helpers/bodies.js'
import { loginAs, TEST_OPERATOR_PASSWORD } from '../helpers/console.js'
import { reportMissing } from '../helpers/machine-tools.js'
import { useTestApp } from '../helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  partnerWithToken,
  seedCatalog,
  seedPlans,
  TOTAL_12X,
} from '../helpers/world.js'
import {
  CHROMIUM_TOOL,
  hasChromium,
  launchBrowser,
  newPage,
  openScreen,
  seriousViolations,
  signIn,
} from './browser.js'
import { type ServedConsole, serveConsole } from './serve.js'

// An administrator's screens in Chromium (README, Operator console): search by IMEI across
// partners, credentials issued (the secret shown once) and revoked, a failed refund retried, and
// the dashboard's figures against the operator API's. One browser for the file.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })
const ctx = useTestApp({ env: { AMPARO_LOGIN_RATE_LIMIT: '100000', AMPARO_RATE_LIMIT: '100000' } })

let served: ServedConsole
let browser: Browser
let page: Page
const imei = uniqueImei()
const partners: { id: number; name: string }[] = []
let refundId = 0

async function ok(token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const response = await ctx.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) })
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300)
  return response.json()
}

let subscription: { id: number; policy_number: string }
const SIGN_IN_CODE = '482913'

describe.skipIf(!hasChromium)('operator console, administrator', () => {
  beforeAll(async () => {
    const { model } = await seedCatalog(ctx.db)
    const pro = model('iPhone 16 Pro').id
    const customer = { ...customerBody(), name: 'Iolanda Gonçalves Teixeira' }
    // The same customer and the same phone under two partners: an annual plan, canceled (its
    // refund the gateway kept refusing until it gave up), then a subscription of the freed phone.
    const b = await partnerWithToken(ctx.app, ctx.db, 'external')
    await seedPlans(ctx.db, b.partner.id, [ANNUAL])
    const atB = await createCustomer(ctx.app, b.token, customer)
    const plan = await ok(b.token, 'POST', '/annual-plans', {
      model_id: pro,
      customer_id: atB.id,
      imei,
      payment: { method: 'pix' },
    })
    await ok(b.token, 'POST', `/annual-plans/${plan.id}/notify-payment`)
    const { protocol } = await ok(b.token, 'PUT', `/annual-plans/${plan.id}/cancellation`)
    await ok(b.token, 'POST', `/annual-plans/${plan.id}/cancellation/${protocol}`)

    const a = await partnerWithToken(ctx.app, ctx.db, 'external')
    const [total] = await seedPlans(ctx.db, a.partner.id, [TOTAL_12X])
    const atA = await createCustomer(ctx.app, a.token, customer)
    const sub = await ok(a.token, 'POST', '/subscriptions', {
      plan_id: total.id,
      customer_id: atA.id,
      model_id: pro,
      serial_number: imei,
    })
    const [first] = await ok(a.token, 'GET', `/subscriptions/${sub.id}/installments`)
    await ok(a.token, 'POST', `/subscriptions/${sub.id}/installments/${first.id}/notify-payment`)
    subscription = await ok(a.token, 'GET', `/subscriptions/${sub.id}`)
    for (const p of [a.partner, b.partner]) {
      const row = await ctx.db
        .selectFrom('partners')
        .select(['id', 'name'])
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow()
      partners.push(row)
    }

    const now = new Date().toISOString()
    const failed = {
      status: 'failed' as const,
      attempts: 9,
      next_attempt_at: now,
      give_up_at: now,
      locked_until: null,
      last_error: 'gateway_unavailable',
    }
    const existing = await ctx.db
      .selectFrom('annual_plan_refunds')
      .select('id')
      .where('annual_plan_id', '=', plan.id)
      .executeTakeFirst()
    if (existing) {
      await retryingTransaction(ctx.db, (trx) =>
        trx.updateTable('annual_plan_refunds').set(failed).where('id', '=', existing.id).execute(),
      )
      refundId = existing.id
    } else {
      const refund = await retryingTransaction(ctx.db, (trx) =>
        trx
          .insertInto('annual_plan_refunds')
          .values({
            ...failed,
            annual_plan_id: plan.id,
            partner_id: b.partner.id,
            amount: 41_250,
            payment_reference: 'pi_console_test',
            gateway_refund_id: null,
            refunded_at: null,
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      )
      refundId = refund.id
    }

    // The insured asked the portal for a code; the worker writes their messages; without a mail
    // server they are kept.
    await retryingTransaction(ctx.db, (trx) =>
      queueSignInMessage(trx, { customerId: atA.id, code: SIGN_IN_CODE }),
    )
    await deliverMessagesOnce({
      db: ctx.db,
      clock: systemClock,
      timeZone: ctx.config.timeZone,
      mail: ctx.config.mail,
    })

    served = await serveConsole(ctx)
    await loginAs(ctx.db, 'admin', { email: 'chefe@amparo.test' })
    browser = await launchBrowser()
    page = await newPage(browser)
    await signIn(page, served.base, { email: 'chefe@amparo.test', password: TEST_OPERATOR_PASSWORD })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('finds the customer under both partners by the IMEI', async () => {
    await openScreen(page, served.base, '#/busca', 'Busca')
    await page.getByRole('searchbox').fill(imei)
    await page.getByRole('button', { name: 'Buscar' }).click()
    const customer = page.getByTestId('customer')
    await customer.first().waitFor()
    expect(await customer.count()).toBe(1)
    for (const p of partners) await customer.locator(`tr[data-partner="${p.name}"]`).first().waitFor()
    const contracts = customer.getByRole('region', { name: 'Contratos do cliente' })
    expect(await contracts.locator('tbody tr').count()).toBe(2)
  })

  it('finds the customer by the start of a word of the name, and shows the contract by its policy number', async () => {
    await openScreen(page, served.base, '#/busca', 'Busca')
    await page.getByRole('searchbox').fill('GONCALV')
    await page.getByRole('button', { name: 'Buscar' }).click()
    const customer = page.getByTestId('customer')
    await customer.first().waitFor()
    expect(await customer.count()).toBe(1)
    expect(subscription.policy_number).toMatch(/^AMP-/)
    const row = customer.locator(`tr[data-partner="${partners[0]?.name}"]`)
    await row.getByText(subscription.policy_number).waitFor()
    await row.getByText(`Assinatura ${subscription.id} · ${partners[0]?.name}`).waitFor()
    // Statuses in words, never the API's codes.
    expect(await customer.textContent()).not.toMatch(/\bpago\b|canceled|protected|annual_plan/)
  })

  it("shows the customer's messages and their state where the customer is shown", async () => {
    await openScreen(page, served.base, '#/busca', 'Busca')
    await page.getByRole('searchbox').fill(imei)
    await page.getByRole('button', { name: 'Buscar' }).click()
    const messages = page.getByRole('region', { name: 'Mensagens ao cliente' })
    await messages.waitFor()
    const rows = messages.locator('tbody tr')
    // Under partner A the subscription in force and a sign-in code (shown: the service is in
    // test); under B the annual plan in force, then canceled.
    await rows.nth(3).waitFor()
    expect(await rows.count()).toBe(4)
    const text = (await messages.textContent()) ?? ''
    expect(text.match(/Proteção em vigor/g)).toHaveLength(2)
    expect(text).toContain('Cancelamento')
    await messages.getByText(`Seu código de acesso: ${SIGN_IN_CODE}`).waitFor()
    expect(text.match(/Guardada \(sem servidor de e-mail\)/g)).toHaveLength(4)
    expect(text).not.toMatch(/contract_in_force|kept/)
    expect(await seriousViolations(page)).toEqual([])
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
    ] as const) {
      await page.setViewportSize({ width, height })
      await messages.screenshot({ path: `${tmpdir()}/amparo-customer-messages-${width}.png` })
    }
  })

  it('issues a credential, shows its secret once, then revokes it', async () => {
    const partner = partners[0]
    if (!partner) throw new Error('no partner')
    await page.goto(`${served.base}/#/parceiros/${partner.id}`)
    await page.getByRole('heading', { name: 'Credenciais' }).waitFor()
    await page.getByRole('button', { name: 'Emitir credencial' }).click()
    const clientId = (await page.getByTestId('issued-client-id').textContent()) ?? ''
    const secret = (await page.getByTestId('issued-client-secret').textContent()) ?? ''
    expect(secret.length).toBeGreaterThan(20)
    // The issued pair logs in to the partner API.
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { client_id: clientId, client_secret: secret },
    })
    expect(login.statusCode, login.body).toBe(200)
    const row = page.locator(`tr[data-client-id="${clientId}"]`)
    await row.waitFor()
    await page.getByRole('button', { name: 'Já copiei' }).click()
    expect(await page.getByText(secret).count()).toBe(0)
    await page.reload()
    await row.waitFor()
    expect(await page.getByText(secret).count()).toBe(0)

    await row.getByRole('button', { name: /^Revogar/ }).click()
    await row.getByRole('button', { name: /Confirmar revogação/ }).click()
    await row.getByText(/revogada/).waitFor()
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { client_id: clientId, client_secret: secret },
    })
    expect(refused.statusCode).toBe(401)
  })

  it("switches a partner's messages to its customers off and on again", async () => {
    const partner = partners[1]
    if (!partner) throw new Error('no partner')
    await page.goto(`${served.base}/#/parceiros/${partner.id}`)
    const panel = page.getByRole('region', { name: 'Mensagens aos segurados' })
    await panel.getByText('ligadas', { exact: true }).waitFor()
    await panel.getByRole('button', { name: 'Desligar mensagens' }).click()
    await page.getByText('Mensagens desligadas.').waitFor()
    await panel.getByText('desligadas', { exact: true }).waitFor()
    const stored = () =>
      ctx.db
        .selectFrom('partners')
        .select('notify_insured')
        .where('id', '=', partner.id)
        .executeTakeFirstOrThrow()
    expect(Boolean((await stored()).notify_insured)).toBe(false)
    expect(await seriousViolations(page)).toEqual([])
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
    ] as const) {
      await page.setViewportSize({ width, height })
      await panel.screenshot({ path: `${tmpdir()}/amparo-partner-notify-${width}.png` })
    }
    await page.reload()
    await panel.getByRole('button', { name: 'Ligar mensagens' }).click()
    await page.getByText('Mensagens ligadas.').waitFor()
    expect(Boolean((await stored()).notify_insured)).toBe(true)
  })

  it('retries a failed refund', async () => {
    await openScreen(page, served.base, '#/reembolsos?status=failed', 'Reembolsos')
    const row = page.locator(`tr[data-refund="${refundId}"]`)
    await row.getByRole('button', { name: /Tentar de novo/ }).click()
    await page.getByText(`Reembolso ${refundId}: nova tentativa`).waitFor()
    const after = await ctx.db
      .selectFrom('annual_plan_refunds')
      .select('status')
      .where('id', '=', refundId)
      .executeTakeFirstOrThrow()
    expect(after.status).toBe('pending')
    await row.waitFor({ state: 'detached' })
  })

  it("shows the dashboard's figures as the operator API computes them", async () => {
    const month = new Date().toISOString().slice(0, 7)
    await openScreen(page, served.base, `#/painel?from=${month}&to=${month}`, 'Painel')
    await page.getByTestId('premiums-table').waitFor()
    const api = await served.console.inject({
      method: 'GET',
      url: `/api/dashboard?from=${month}&to=${month}`,
      headers: await loginAs(ctx.db, 'viewer'),
    })
    expect(api.statusCode, api.body).toBe(200)
    const data = api.json()
    const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
    const brl = (cents: number) => money.format(cents / 100)
    expect(await page.getByTestId('total-written').textContent()).toBe(brl(data.totals.written_cents))
    expect(await page.getByTestId('total-collected').textContent()).toBe(brl(data.totals.collected_cents))
    expect(await page.getByTestId('total-claims-paid').textContent()).toBe(brl(data.totals.claims_paid_cents))
    expect(await page.getByTestId('active-subscriptions').textContent()).toBe(
      String(data.active_protections.subscriptions),
    )
    // The API's figures are the partner API's contracts: one subscription in force, its first
    // installment and the annual plan's premium collected this month.
    expect(data.active_protections.subscriptions).toBe(1)
    const cells = await page
      .locator('[data-testid="premiums-table"] tbody tr td')
      .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-cents'))))
    const written = cells.filter((_, i) => i % 2 === 0).reduce((x, y) => x + y, 0)
    const collected = cells.filter((_, i) => i % 2 === 1).reduce((x, y) => x + y, 0)
    expect(written).toBe(data.totals.written_cents)
    expect(collected).toBe(data.totals.collected_cents)
    const payments = await ctx.db.selectFrom('installments').select(['amount', 'status']).execute()
    expect(payments.length).toBeGreaterThan(0)
    expect(collected).toBeGreaterThan(0)
  })
})

reportMissing(CHROMIUM_TOOL)
