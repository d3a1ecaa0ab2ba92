import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { subscriptionCard } from '../helpers/bodies.js'
import { loginAs, TEST_OPERATOR_PASSWORD } from '../helpers/console.js'
import { reportMissing } from '../helpers/machine-tools.js'
import { StripeServer } from '../helpers/stripe-server.js'
import { useTestApp } from '../helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, type Seller, seller } from '../helpers/world.js'
import {
  CHROMIUM_TOOL,
  DESKTOP,
  hasChromium,
  launchBrowser,
  newPage,
  openScreen,
  PHONE,
  seriousViolations,
  signIn,
} from './browser.js'
import { type ServedConsole, serveConsole } from './serve.js'

// The console's Disputas with a chargeback in it, in Debian's Chromium (README, Operator console):
// Stripe's signed charge.dispute.created on a card payment made through the Stripe-compatible
// server; the row shows the payment, the amount in reais, the reason in Portuguese, the evidence
// deadline in the service's zone (the browser's is UTC) and the status; closed won or lost, it
// leaves the open ones and says so under "Todas". At 1280×800 and 390×844, axe-core on each.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

const stripe = new StripeServer()
beforeAll(() => stripe.start())
afterAll(() => stripe.stop())
const ctx = useTestApp(() => ({
  env: { ...stripe.env(60), STRIPE_WEBHOOK_SECRET: stripe.webhookSecret },
}))

let served: ServedConsole
let browser: Browser
let page: Page
let own: Seller
let modelId = 0
const viewer = { email: 'disputas@amparo.test', password: TEST_OPERATOR_PASSWORD }
// 2026-12-20 02:59:59 UTC: 19/12/2026 23:59 in São Paulo, the service's zone.
const DUE_BY = Date.UTC(2026, 11, 20, 2, 59, 59) / 1000

const disputes: { id: string; intent: string; policy: string; subscription: number }[] = []

/** A subscription paid by card at Stripe and a dispute Stripe opened on it (signed, delivered). */
async function disputedPayment(id: string, reason: string, amount: number, dueBy: number) {
  const sub = await contractSubscription(ctx, own, modelId)
  await answer(ctx, own, 'POST', `/subscriptions/${sub.id}/payment`, subscriptionCard)
  const intent = stripe.paymentIntents.at(-1)
  if (intent?.status !== 'succeeded') throw new Error('no card charge')
  await deliver(
    'charge.dispute.created',
    disputeObject(id, intent.id, reason, amount, 'needs_response', dueBy),
  )
  const { policy_number } = await answer(ctx, own, 'GET', `/subscriptions/${sub.id}`)
  disputes.push({ id, intent: intent.id, policy: policy_number, subscription: sub.id })
  return { intent: intent.id }
}

const disputeObject = (
  id: string,
  paymentIntent: string,
  reason: string,
  amount: number,
  status: string,
  dueBy: number,
) => ({
  id,
  object: 'dispute',
  amount,
  currency: 'brl',
  charge: `ch_for_${paymentIntent}`,
  payment_intent: paymentIntent,
  reason,
  status,
  evidence_details: { due_by: dueBy, has_evidence: false, past_due: false, submission_count: 0 },
})

async function deliver(type: string, object: Record<string, unknown>) {
  const event = stripe.signedEvent(type, object)
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/stripe/webhooks',
    payload: event.payload,
    headers: event.headers,
  })
  expect(response.statusCode, response.body).toBe(200)
  expect(response.json().result).toBe('applied')
}

const rowOf = (p: Page, disputeId: string): Locator => p.locator(`tr[data-dispute="${disputeId}"]`)
const cell = (row: Locator, name: string) => row.locator(`[data-label="${name}"]`).innerText()

async function noSidewaysScroll(p: Page, width: number) {
  const wide = await p.evaluate('document.documentElement.scrollWidth > window.innerWidth')
  expect(wide, `${width}px`).toBe(false)
}

describe.skipIf(!hasChromium)('Disputas with chargebacks', () => {
  beforeAll(async () => {
    modelId = await galaxyOf(ctx)
    own = await seller(ctx, 'own')
    await disputedPayment('dp_consoleFraud', 'fraudulent', 5400, DUE_BY)
    await disputedPayment('dp_consoleNotReceived', 'product_not_received', 12_345, DUE_BY + 86_400)
    served = await serveConsole(ctx)
    await loginAs(ctx.db, 'viewer', { email: viewer.email })
    browser = await launchBrowser()
    page = await newPage(browser)
    await signIn(page, served.base, { ...viewer, enroll: true })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('shows an open dispute: the payment, R$, the reason in Portuguese, the deadline in São Paulo, the status', async () => {
    const [fraud] = disputes
    if (!fraud) throw new Error('no dispute')
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport)
      await openScreen(page, served.base, '#/disputas', 'Disputas')
      const row = rowOf(page, fraud.id)
      await row.waitFor()
      // The nearest deadline first.
      expect(await page.locator('tbody tr').first().getAttribute('data-dispute')).toBe(fraud.id)
      expect(await row.locator('th').innerText()).toMatch(/^19\/12\/2026,? 23:59$/)
      expect(await cell(row, 'Contrato')).toContain(fraud.policy)
      expect(await cell(row, 'Contrato')).toContain(`assinatura ${fraud.subscription}`)
      const payment = await cell(row, 'Pagamento')
      expect(payment).toMatch(/Parcela 1, paga em \d\d\/\d\d\/\d{4},? \d\d:\d\d/)
      expect(payment).toContain(`Stripe ${fraud.intent}`)
      expect(await cell(row, 'Valor')).toMatch(/^R\$\s?54,00$/)
      expect(await cell(row, 'Motivo')).toBe('Fraude')
      expect(await cell(row, 'Situação')).toBe('Em disputa')
      const other = rowOf(page, 'dp_consoleNotReceived')
      expect(await cell(other, 'Valor')).toMatch(/^R\$\s?123,45$/)
      expect(await cell(other, 'Motivo')).toBe('Produto não recebido')
      expect(await other.locator('th').innerText()).toMatch(/^20\/12\/2026,? 23:59$/)
      if (viewport === PHONE) {
        // A card's second lines stay beside their label, in the value's column.
        for (const name of ['Contrato', 'Pagamento']) {
          const box = await row.locator(`[data-label="${name}"]`).boundingBox()
          const line = await row.locator(`[data-label="${name}"] .small`).boundingBox()
          expect((line?.x ?? 0) - (box?.x ?? 0), name).toBeGreaterThan(80)
        }
      }
      await noSidewaysScroll(page, viewport.width)
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/disputas-open-${viewport.width}.png`,
        fullPage: true,
      })
      expect(await seriousViolations(page)).toEqual([])
    }
    await page.setViewportSize(DESKTOP)
  })

  it('closed won and lost: gone from the open ones, shown so under "Todas"', async () => {
    const [fraud, notReceived] = disputes
    if (!fraud || !notReceived) throw new Error('no disputes')
    await deliver(
      'charge.dispute.closed',
      disputeObject(fraud.id, fraud.intent, 'fraudulent', 5400, 'won', DUE_BY),
    )
    await deliver(
      'charge.dispute.closed',
      disputeObject(
        notReceived.id,
        notReceived.intent,
        'product_not_received',
        12_345,
        'lost',
        DUE_BY + 86_400,
      ),
    )
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport)
      await openScreen(page, served.base, '#/disputas', 'Disputas')
      await page.getByRole('button', { name: 'Todas' }).click()
      const won = rowOf(page, fraud.id)
      await expect.poll(() => cell(won, 'Situação'), { timeout: 30_000 }).toBe('Disputa ganha')
      expect(await page.getByRole('button', { name: 'Todas' }).getAttribute('aria-pressed')).toBe('true')
      expect(await cell(rowOf(page, notReceived.id), 'Situação')).toBe('Disputa perdida')
      // Closed, the deadline stays what Stripe gave.
      expect(await won.locator('th').innerText()).toMatch(/^19\/12\/2026,? 23:59$/)
      await noSidewaysScroll(page, viewport.width)
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/disputas-closed-${viewport.width}.png`,
        fullPage: true,
      })
      expect(await seriousViolations(page)).toEqual([])
      await page.getByRole('button', { name: 'Em aberto' }).click()
      await page.getByText('Nenhuma disputa em aberto.').waitFor()
    }
    await page.setViewportSize(DESKTOP)
  })
})

reportMissing(CHROMIUM_TOOL)
