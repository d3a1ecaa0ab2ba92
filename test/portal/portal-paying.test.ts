import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { APPROVES_ONCE } from '../../src/modules/payments/sandbox-gateway.js'
import { buildPortalApp, type PortalApp } from '../../src/portal/app.js'
import type { Clock } from '../../src/shared/time.js'
import {
  CHROMIUM_TOOL,
  DESKTOP,
  hasChromium,
  launchBrowser,
  newPage,
  PHONE,
  seriousViolations,
} from '../console/browser.js'
import { portalRoot } from '../console/built.js'
import { customerBody, subscriptionCard } from '../helpers/bodies.js'
import { reportMissing } from '../helpers/machine-tools.js'
import { useTestApp } from '../helpers/test-app.js'
import { answer, galaxyOf, type Seller, seller } from '../helpers/world.js'

// Paying from the insured's portal in Debian's Chromium (README, Portal do segurado): an installment
// the bank declined on its due date (the partner's sandbox clock moved a month) paid by card, the
// card replaced, and a PIX code shown and copied, the page turning to "pago" once the sandbox pays
// it; axe-core on each screen, at 390×844 and 1280×800.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })
const clock: Clock = { now: () => new Date('2026-11-21T15:00:00.000Z') }
const ctx = useTestApp(() => ({ clock }))

let portal: PortalApp
let base = ''
let browser: Browser
let modelId = 0
/** Every sign-in code the portal sent, by customer. */
const codes = new Map<number, string>()

beforeAll(async () => {
  modelId = await galaxyOf(ctx)
  portal = await buildPortalApp({
    config: ctx.config,
    db: ctx.db,
    clock,
    gateway: ctx.app.gateway,
    logger: false,
    staticRoot: await portalRoot(),
    signIn: { deliver: async (_trx, message) => void codes.set(message.customerId, message.code) },
  })
  await portal.listen({ host: '127.0.0.1', port: 0 })
  const address = portal.server.address()
  if (!address || typeof address === 'string') throw new Error('the portal is not listening')
  base = `http://127.0.0.1:${address.port}`
  if (hasChromium) browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.close()
})

async function signIn(page: Page, s: Seller, document: string) {
  codes.delete(s.customerId)
  await page.goto(`${base}/`)
  await page.getByLabel('CPF ou CNPJ').fill(document)
  await page.getByRole('button', { name: 'Receber código por e-mail' }).click()
  await expect.poll(() => codes.has(s.customerId)).toBe(true)
  await page.getByLabel('Código').fill(codes.get(s.customerId) ?? '')
  await page.getByRole('button', { name: 'Entrar' }).click()
  await page.getByRole('heading', { level: 1, name: 'Minhas proteções' }).waitFor()
  await page.getByText('Carregando…').waitFor({ state: 'detached' })
}

async function fillCard(region: Locator, number: string) {
  await region.getByLabel('Número do cartão').fill(number)
  await region.getByLabel('Validade (MM/AA)').fill('12/30')
  await region.getByLabel('Código de segurança').fill('123')
  await region.getByLabel('Nome impresso no cartão').fill('MARIA DA SILVA')
}

async function checkAxe(page: Page, screen: string) {
  expect(await seriousViolations(page), screen).toEqual([])
}

describe('the portal’s first screen', () => {
  it('loads at most 150 KB of script, gzipped, paying screens included', async () => {
    const root = await portalRoot()
    const index = readFileSync(join(root, 'index.html'), 'utf8')
    const scripts = [...index.matchAll(/<script[^>]*src="\/([^"]+)"/g)].map((m) => m[1] as string)
    expect(scripts.length).toBeGreaterThan(0)
    const gzipped = scripts.reduce((sum, path) => sum + gzipSync(readFileSync(join(root, path))).length, 0)
    expect(gzipped).toBeLessThanOrEqual(150 * 1024)
  })
})

describe.skipIf(!hasChromium)('paying from the insured portal in Chromium', () => {
  for (const [viewport, size] of [
    ['390×844', PHONE],
    ['1280×800', DESKTOP],
  ] as const) {
    it(`pays a declined installment by card, replaces the card, and pays by PIX (${viewport})`, async () => {
      const customer = customerBody()
      const s = await seller(ctx, { partner: 'own', customer })
      const tag = `${size.width}-${process.pid}`
      // Paid by a card that approves once: a month later the renewal is declined.
      const renewing = await answer(
        ctx,
        s,
        'POST',
        '/subscriptions',
        {
          plan_id: s.planId,
          customer_id: s.customerId,
          model_id: modelId,
          serial_number: `SN-CARTAO-${tag}`,
        },
        201,
      )
      await answer(ctx, s, 'POST', `/subscriptions/${renewing.id}/payment`, {
        creditCard: { ...subscriptionCard.creditCard, number: APPROVES_ONCE },
      })
      const moved = await answer(ctx, s, 'POST', '/sandbox/clock/advance', { days: 31 })
      expect(moved.jobs.recurrence.declined).toBeGreaterThanOrEqual(1)
      const unpaid = await answer(
        ctx,
        s,
        'POST',
        '/subscriptions',
        { plan_id: s.planId, customer_id: s.customerId, model_id: modelId, serial_number: `SN-PIX-${tag}` },
        201,
      )

      const page = await newPage(browser, size)
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
      await signIn(page, s, String(customer.document))

      // An installment in arrears, paid by card.
      const renewingCard = page.getByRole('article').filter({ hasText: `SN-CARTAO-${tag}` })
      await renewingCard.getByRole('button', { name: 'Pagar parcela em atraso' }).click()
      const payRegion = renewingCard.getByRole('region', { name: 'Pagar parcela em atraso' })
      await expect.poll(() => payRegion.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true)
      await fillCard(payRegion, '4111111111111111')
      await checkAxe(page, 'pagar parcela')
      await page.screenshot({ path: `screenshots/portal-pagar-cartao-${size.width}.png`, fullPage: true })
      await payRegion.getByRole('button', { name: 'Pagar' }).click()
      await payRegion.getByRole('status').filter({ hasText: 'Pagamento aprovado' }).waitFor()
      const installments = await answer(ctx, s, 'GET', `/subscriptions/${renewing.id}/installments`)
      expect(installments[1]).toMatchObject({ status: 'paid', paid_with: 'card' })
      await payRegion.getByRole('button', { name: 'Fechar' }).click()

      // The card replaced; a declined one is said so first.
      await renewingCard.getByRole('button', { name: 'Trocar cartão' }).click()
      const cardRegion = renewingCard.getByRole('region', { name: 'Trocar cartão' })
      await fillCard(cardRegion, '4000000000000002')
      await cardRegion.getByRole('button', { name: 'Salvar cartão' }).click()
      await cardRegion.getByRole('alert').waitFor()
      await checkAxe(page, 'trocar cartão (recusado)')
      await page.screenshot({ path: `screenshots/portal-trocar-cartao-${size.width}.png`, fullPage: true })
      await cardRegion.getByLabel('Número do cartão').fill('5555555555554444')
      await cardRegion.getByRole('button', { name: 'Salvar cartão' }).click()
      await cardRegion.getByRole('status').filter({ hasText: 'Cartão trocado' }).waitFor()
      const replaced = await answer(ctx, s, 'GET', `/subscriptions/${renewing.id}`)
      expect(replaced.card).toMatchObject({ last4: '4444' })

      // PIX: the QR image, the copia e cola copied, then paid by the sandbox.
      const pixCard = page.getByRole('article').filter({ hasText: `SN-PIX-${tag}` })
      // By keyboard: the button, then the panel takes the focus.
      await pixCard.getByRole('button', { name: 'Pagar com PIX' }).focus()
      await page.keyboard.press('Enter')
      const pixRegion = pixCard.getByRole('region', { name: /Pagar com PIX/ })
      await expect.poll(() => pixRegion.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true)
      const image = pixRegion.getByRole('img', { name: /QR code do PIX/ })
      await image.waitFor()
      await expect
        .poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0)
      const text = await pixRegion.getByLabel('PIX copia e cola').inputValue()
      expect(text).toMatch(/^000201/)
      await pixRegion.getByRole('button', { name: 'Copiar código' }).focus()
      await page.keyboard.press('Space')
      await pixRegion.getByText('Código copiado').waitFor()
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(text)
      expect(await pixRegion.textContent()).toMatch(
        /Válido até \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(horário de Brasília\)/,
      )
      await checkAxe(page, 'pagar com PIX')
      await page.screenshot({ path: `screenshots/portal-pix-${size.width}.png`, fullPage: true })

      // Two hours later the code has expired: the page says so and makes a new one.
      await answer(ctx, s, 'POST', '/sandbox/clock/advance', { hours: 2 })
      await pixRegion.getByText('Código expirado').waitFor()
      await checkAxe(page, 'PIX expirado')
      await page.screenshot({ path: `screenshots/portal-pix-expirado-${size.width}.png`, fullPage: true })
      await pixRegion.getByRole('button', { name: 'Gerar novo código' }).click()
      await expect.poll(() => pixRegion.getByLabel('PIX copia e cola').inputValue()).not.toBe(text)

      const [first] = await answer(ctx, s, 'GET', `/subscriptions/${unpaid.id}/installments`)
      const code = await ctx.db
        .selectFrom('payment_codes')
        .select('id')
        .where('installment_id', '=', first.id)
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow()
      await answer(ctx, s, 'POST', `/sandbox/payments/${code.id}/pay`)
      await pixRegion.getByRole('status').filter({ hasText: 'Pago' }).waitFor()
      await expect.poll(async () => (await pixCard.textContent()) ?? '').toContain('Pago')
      await checkAxe(page, 'PIX pago')
      await page.screenshot({ path: `screenshots/portal-pix-pago-${size.width}.png`, fullPage: true })
      expect((await answer(ctx, s, 'GET', `/subscriptions/${unpaid.id}`)).status).toBe('pago')
      await page.context().close()
    })
  }
})

reportMissing(CHROMIUM_TOOL)
