import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildPortalApp, type PortalApp } from '../../src/portal/app.js'
import { deliverMessagesOnce } from '../../src/worker/messages.job.js'
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
import { customerBody } from '../helpers/bodies.js'
import { jpeg, pdf } from '../helpers/claim-documents.js'
import {
  ctx,
  daysAfter,
  local,
  now,
  ok,
  paidAnnualPlan,
  paidSubscription,
  type Seller,
  seller,
  useClaimsWorld,
} from '../helpers/claims-world.js'
import { reportMissing } from '../helpers/machine-tools.js'
import { createCustomer, login } from '../helpers/world.js'

// The insured's portal in Debian's Chromium (README, Portal do segurado): sign in by the e-mailed
// code, two contracts under two partners, a theft claim opened with a photo and a PDF from the file
// picker, withdrawals (an annual plan's with its refund), and axe-core on every screen, at 390×844 and at 1280×800. The portal listens on a free
// port over the claims world's database, on its clock.

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

let portal: PortalApp
let base = ''
let browser: Browser
let a: Seller
let b: Seller
let subscription = 0
const names = { a: '', b: '' }
/** Codes already typed: each sign-in waits for a new message. */
const used = new Set<string>()
const partnerName = async (id: number) =>
  (await ctx.db.selectFrom('partners').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name

/** Signs in through the screen with the code the e-mail carried. */
async function signIn(page: Page, document: string, mailedTo: Seller = b) {
  await page.goto(`${base}/`)
  await page.getByLabel('CPF ou CNPJ').fill(document)
  await page.getByRole('button', { name: 'Receber código por e-mail' }).click()
  await expect
    .poll(async () => (await page.getByRole('status').textContent()) ?? '')
    .toMatch(/\*\*\*@e\*\*\*\.com/)
  // The code, as the insured's e-mail carries it: the kept sign-in message (GET /sandbox/messages) of
  // the latest customer with the document, who is partner b's.
  let code = ''
  await expect
    .poll(async () => {
      const kept = await ok<{ data: { subject: string }[] }>(
        mailedTo,
        'GET',
        `/sandbox/messages?customer_id=${mailedTo.customer.id}&kind=sign_in&limit=1`,
      )
      code = /(\d{6})$/.exec(kept.data[0]?.subject ?? '')?.[1] ?? ''
      return code !== '' && !used.has(code)
    })
    .toBe(true)
  used.add(code)
  await page.getByLabel('Código').fill(code)
  await page.getByRole('button', { name: 'Entrar' }).click()
  await page.getByRole('heading', { level: 1, name: 'Minhas proteções' }).waitFor()
  await page.getByText('Carregando…').waitFor({ state: 'detached' })
}

async function checkAxe(page: Page, screen: string) {
  expect(await seriousViolations(page), screen).toEqual([])
}

describe.skipIf(!hasChromium)('insured portal in Chromium', () => {
  beforeAll(async () => {
    a = await seller()
    const other = await seller()
    const token = await login(ctx.app, other.partner)
    b = {
      ...other,
      customer: await createCustomer(ctx.app, token, { ...customerBody(), document: a.customer.document }),
    }
    subscription = await paidSubscription(a, { paidAt: daysAfter(-20) })
    await paidAnnualPlan(b)
    names.a = await partnerName(a.partner.id)
    names.b = await partnerName(b.partner.id)
    portal = await buildPortalApp({
      config: ctx.config,
      db: ctx.db,
      clock: { now: () => now },
      logger: false,
      staticRoot: await portalRoot(),
    })
    await portal.listen({ host: '127.0.0.1', port: 0 })
    const address = portal.server.address()
    if (!address || typeof address === 'string') throw new Error('the portal is not listening')
    base = `http://127.0.0.1:${address.port}`
    browser = await launchBrowser()
  })

  afterAll(async () => {
    await browser?.close()
    await portal?.close()
  })

  it('signs in by code, shows both partners’ contracts, opens a theft claim with a PDF and a photo (390×844)', async () => {
    const page = await newPage(browser, PHONE)
    await page.goto(`${base}/`)
    await page.getByRole('heading', { level: 1, name: 'Minhas proteções' }).waitFor()
    await checkAxe(page, 'entrar')
    await page.screenshot({ path: 'screenshots/portal-entrar-phone.png', fullPage: true })
    await signIn(page, a.customer.document)

    const cards = page.getByRole('article')
    await expect.poll(() => cards.count()).toBe(2)
    await expect.poll(async () => (await page.locator('main').textContent()) ?? '').toContain(names.a)
    expect(await page.locator('main').textContent()).toContain(names.b)
    await checkAxe(page, 'minhas proteções')
    await page.screenshot({ path: 'screenshots/portal-protecoes-phone.png', fullPage: true })

    const card = page.getByRole('article').filter({ hasText: names.a })
    await card.getByRole('link', { name: 'Abrir sinistro' }).click()
    await page.getByRole('heading', { level: 1, name: 'Abrir sinistro' }).waitFor()
    await page.getByLabel('O que aconteceu?').selectOption('robbery')
    const occurred = local(daysAfter(-1))
    await page.getByLabel('Data', { exact: true }).fill(occurred.slice(0, 10))
    await page.getByLabel('Hora aproximada').fill('21:30')
    await page.getByLabel(/Conte como foi/).fill('Levaram meu celular na saída do metrô.')
    await page.getByLabel('Número do boletim de ocorrência').fill('BO-2026-7788')
    await checkAxe(page, 'abrir sinistro')
    await page.screenshot({ path: 'screenshots/portal-abrir-phone.png', fullPage: true })
    await page.getByRole('button', { name: 'Abrir sinistro' }).click()
    await page.getByRole('heading', { level: 1, name: /^Sinistro SIN-/ }).waitFor()

    await page.getByLabel('Tipo de documento').selectOption('police_report')
    await page.getByLabel('Escolher arquivos').setInputFiles([
      { name: 'boletim.pdf', mimeType: 'application/pdf', buffer: pdf('Boletim de Ocorrência') },
      { name: 'foto-do-boletim.jpg', mimeType: 'image/jpeg', buffer: jpeg('boletim') },
    ])
    const sent = page.getByRole('region', { name: 'Documentos enviados' })
    await expect.poll(async () => await sent.getByRole('listitem').count()).toBe(2)
    const missing = page.getByRole('region', { name: 'Documentos que faltam' })
    await expect.poll(async () => (await missing.textContent()) ?? '').not.toContain('Boletim')
    await checkAxe(page, 'sinistro')
    await page.screenshot({ path: 'screenshots/portal-sinistro-phone.png', fullPage: true })

    // The partner sees the claim the insured opened, with both documents.
    const claims = await ok<{ data: { opened_by: string; documents: unknown[]; subscription_id: number }[] }>(
      a,
      'GET',
      '/claims',
    )
    expect(claims.data[0]).toMatchObject({ opened_by: 'insured', subscription_id: subscription })
    expect(claims.data[0]?.documents).toHaveLength(2)
    await page.context().close()
  })

  it('shows every screen at 1280×800 without serious accessibility violations', async () => {
    const page = await newPage(browser, DESKTOP)
    await signIn(page, a.customer.document)
    await expect.poll(() => page.getByRole('article').count()).toBe(2)
    expect(await page.locator('main').textContent()).toContain(names.b)
    await checkAxe(page, 'minhas proteções')
    await page.screenshot({ path: 'screenshots/portal-protecoes-desktop.png', fullPage: true })
    await page.getByRole('link', { name: 'Meus sinistros' }).click()
    await page.getByRole('heading', { level: 1, name: 'Meus sinistros' }).waitFor()
    await page.getByText('Carregando…').waitFor({ state: 'detached' })
    await expect.poll(() => page.getByRole('listitem').count()).toBeGreaterThan(0)
    await checkAxe(page, 'meus sinistros')
    await page.screenshot({ path: 'screenshots/portal-sinistros-desktop.png', fullPage: true })
    await page.getByRole('link', { name: /SIN-/ }).first().click()
    await page.getByRole('heading', { level: 1, name: /^Sinistro SIN-/ }).waitFor()
    await checkAxe(page, 'sinistro')
    await page.getByRole('button', { name: 'Sair' }).click()
    await page.getByLabel('CPF ou CNPJ').waitFor()
    await page.context().close()
  })

  it('signs in by the link a kept message carries, once (390×844)', async () => {
    // The contract-in-force messages, kept (no mail server in test), each with its sign-in link.
    await deliverMessagesOnce({
      db: ctx.db,
      clock: { now: () => now },
      timeZone: ctx.config.timeZone,
      mail: ctx.config.mail,
    })
    const kept = await ok<{ data: { text: string; state: string }[] }>(
      a,
      'GET',
      `/sandbox/messages?customer_id=${a.customer.id}&kind=contract_in_force&limit=1`,
    )
    expect(kept.data[0]?.state).toBe('kept')
    // The address the message gives, opened on this test's portal (its own port).
    const link = new URL(
      /(http:\/\/\S+#\/entrar\/[A-Za-z0-9_-]{43})/.exec(kept.data[0]?.text ?? '')?.[1] ?? '',
    )
    expect(link.pathname).toBe('/')
    const opened = `${base}/${link.hash}`

    const page = await newPage(browser, PHONE)
    await page.goto(opened)
    await page.getByRole('heading', { level: 1, name: 'Entrar pelo link' }).waitFor()
    await checkAxe(page, 'entrar pelo link')
    await page.screenshot({ path: 'screenshots/portal-link-phone.png', fullPage: true })
    await page.getByRole('button', { name: 'Entrar', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Minhas proteções' }).waitFor()
    await expect.poll(() => page.getByRole('article').count()).toBe(2)
    // The token left the address bar and the history entry.
    expect(new URL(page.url()).hash).toBe('#/')
    await page.context().close()

    // Used: a second opening of it says so, and offers the code.
    const again = await newPage(browser, PHONE)
    await again.goto(opened)
    await again.getByRole('button', { name: 'Entrar', exact: true }).click()
    await again.getByRole('alert').filter({ hasText: 'Este link de acesso não vale mais' }).waitFor()
    await checkAxe(again, 'link usado')
    await again.screenshot({ path: 'screenshots/portal-link-used-phone.png', fullPage: true })
    await again.setViewportSize(DESKTOP)
    await checkAxe(again, 'link usado (1280×800)')
    await again.screenshot({ path: 'screenshots/portal-link-used-desktop.png', fullPage: true })
    await again.getByRole('button', { name: 'Entrar com um código por e-mail' }).click()
    await again.getByLabel('CPF ou CNPJ').waitFor()
    await again.context().close()
  })

  for (const [viewport, size] of [
    ['390×844', PHONE],
    ['1280×800', DESKTOP],
  ] as const) {
    it(`withdraws from a subscription contracted 2 days ago, through a confirmation (${viewport})`, async () => {
      const fresh = await paidSubscription(a, { paidAt: daysAfter(-2) })
      const page = await newPage(browser, size)
      await signIn(page, a.customer.document)
      const card = page.getByRole('article').filter({ hasText: /Desistir/ })
      await expect.poll(() => card.count()).toBe(1)
      await card.getByRole('button', { name: 'Desistir (arrependimento)' }).click()
      const confirm = card.getByRole('region', { name: /Desistir desta proteção/ })
      await expect.poll(() => confirm.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true)
      await checkAxe(page, 'arrependimento')
      await page.screenshot({ path: `screenshots/portal-arrependimento-${size.width}.png`, fullPage: true })
      await confirm.getByRole('button', { name: 'Confirmar desistência' }).click()
      const result = page.getByRole('status').filter({ hasText: 'Desistência registrada' })
      await result.waitFor()
      await expect.poll(() => result.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true)
      expect((await ok<{ status: string }>(a, 'GET', `/subscriptions/${fresh}`)).status).toBe('canceled')
      await page.context().close()
    })

    it(`withdraws from an annual plan paid 3 days ago, its refund shown (${viewport})`, async () => {
      // An insured of their own: a document takes at most 5 codes an hour.
      const c = await seller()
      const plan = await paidAnnualPlan(c, daysAfter(-3))
      const page = await newPage(browser, size)
      await signIn(page, c.customer.document, c)
      const card = page.getByRole('article') // the one contract of this insured
      await expect.poll(() => card.count()).toBe(1)
      await card.getByRole('button', { name: 'Desistir (arrependimento)' }).click()
      // The card's button gives way to its confirmation, the one on the page.
      const confirm = page.getByRole('region', { name: /Desistir desta proteção/ })
      await confirm.getByRole('button', { name: 'Confirmar desistência' }).click()
      // The result as the insured reads it, taken in the page the moment it shows.
      const result = page.getByRole('status').filter({ hasText: 'Desistência registrada' })
      await result.waitFor()
      const said = await result.textContent()
      const seen = await ok<{ status: string; cancellation: { refund_amount: number } }>(
        c,
        'GET',
        `/annual-plans/${plan}`,
      )
      expect(seen.status).toBe('canceled')
      expect(seen.cancellation.refund_amount).toBeGreaterThan(0)
      // The amount the partner API states, in reais as the insured reads it.
      const reais = seen.cancellation.refund_amount.toLocaleString('pt-BR', {
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
      })
      expect(said?.replace(/\s/g, ' ')).toContain(`Reembolso de R$ ${reais}.`)
      await checkAxe(page, 'arrependimento registrado (plano anual)')
      await page.context().close()
    })
  }
})

reportMissing(CHROMIUM_TOOL)
