import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { documentForm, pdf, png } from '../helpers/claim-documents.js'
import {
  at,
  type ClaimBody,
  call,
  ctx,
  daysAfter,
  local,
  NOW,
  ok,
  paidSubscription,
  type Seller,
  seller,
  useClaimsWorld,
} from '../helpers/claims-world.js'
import { loginAs, TEST_OPERATOR_PASSWORD } from '../helpers/console.js'
import { reportMissing } from '../helpers/machine-tools.js'
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

// The claims queue by deadline in Debian's Chromium (README, Operator console: Sinistros): it opens
// on the open claims, the overdue one first and saying so in words, then by deadline, those awaiting
// documents last; "Todas" lists them by opening; the Painel counts the overdue and those due this
// week. The console's clock stands at the world's NOW; each claim's documents arrived on a day of
// its own (the partner's uploads at that day's time).

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

let served: ServedConsole
let browser: Browser
let page: Page
let s: Seller
const adjuster = { email: 'dora@amparo.test', password: TEST_OPERATOR_PASSWORD }
const numbers: Record<string, string> = {}

/** A damage claim opened `openedDaysAgo` before NOW, its two documents uploaded `completedDaysAgo` (or never). */
async function damageClaim(paidDaysAgo: number, openedDaysAgo: number, completedDaysAgo: number | null) {
  const subscriptionId = await paidSubscription(s, { paidAt: daysAfter(-paidDaysAgo) })
  const claim = await at(daysAfter(-openedDaysAgo), () =>
    ok<ClaimBody>(
      s,
      'POST',
      '/claims',
      {
        subscription_id: subscriptionId,
        type: 'accidental_damage',
        occurred_at: local(daysAfter(-openedDaysAgo - 1)),
        description: 'A tela quebrou após uma queda na calçada.',
      },
      201,
    ),
  )
  if (completedDaysAgo !== null) {
    for (const [kind, bytes, name, type] of [
      ['photo', png(0x30 + (claim.id % 100)), 'tela.png', 'image/png'],
      ['invoice', pdf(`Nota fiscal ${claim.id}`), 'nota.pdf', 'application/pdf'],
    ] as const) {
      const form = documentForm(kind, bytes, name, type)
      const response = await at(daysAfter(-completedDaysAgo), () =>
        call(s, 'POST', `/claims/${claim.id}/documents`, form.payload, form.headers),
      )
      expect(response.statusCode, response.body).toBe(201)
    }
  }
  return claim.number
}

/** The queue's claim numbers, top to bottom. */
const queueNumbers = (p: Page) => p.getByTestId('claims-queue').locator('tbody tr th a').allTextContents()
const row = (p: Page, number: string) =>
  p
    .getByTestId('claims-queue')
    .locator('tbody tr')
    .filter({ has: p.getByRole('link', { name: number }) })

describe.skipIf(!hasChromium)('the claims queue by deadline', () => {
  beforeAll(async () => {
    s = await seller()
    // Opened first, completed late: the oldest claim is not the most urgent.
    numbers.completedLate = await damageClaim(60, 40, 3)
    numbers.overdue = await damageClaim(60, 36, 35)
    numbers.dueThisWeek = await damageClaim(60, 27, 26)
    numbers.recent = await damageClaim(20, 2, 2)
    numbers.awaiting = await damageClaim(20, 1, null)
    served = await serveConsole(ctx, { now: () => NOW })
    await loginAs(ctx.db, 'adjuster', { email: adjuster.email })
    browser = await launchBrowser()
    page = await newPage(browser)
    await signIn(page, served.base, { ...adjuster, enroll: true, now: NOW.getTime() })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('opens on the open claims, the overdue first and marked in words, then by deadline', async () => {
    await openScreen(page, served.base, '#/sinistros', 'Sinistros')
    await page.getByTestId('claims-queue').locator('tbody tr').nth(4).waitFor()
    expect(await page.getByLabel('Situação').inputValue()).toBe('open')
    expect(await queueNumbers(page)).toEqual([
      numbers.overdue,
      numbers.dueThisWeek,
      numbers.completedLate,
      numbers.recent,
      numbers.awaiting,
    ])
    const overdue = row(page, numbers.overdue as string)
    expect(await overdue.locator('td[data-label="Prazo"]').innerText()).toMatch(
      /Atrasado\s+16\/11\/2026 · 5 dias de atraso/,
    )
    expect(
      await row(page, numbers.dueThisWeek as string)
        .locator('td[data-label="Prazo"]')
        .innerText(),
    ).toMatch(/Vence esta semana\s+25\/11\/2026 · faltam 4 dias/)
    expect(
      await row(page, numbers.awaiting as string)
        .locator('td[data-label="Prazo"]')
        .innerText(),
    ).toMatch(/Prazo suspenso/)
    expect(await overdue.locator('td[data-label="Idade"]').innerText()).toMatch(/^36 dias/)
    expect(await overdue.locator('td[data-label="Valor"]').innerText()).toMatch(
      /R\$\s?[\d.]+,\d\d\s+máx\. \(LMI − franquia\)/,
    )
    // A loss 17 days into the cover, the customer's fourth claim: both signals by name.
    const fraud = await row(page, numbers.recent as string)
      .locator('td[data-label="Fraude"]')
      .innerText()
    expect(fraud).toContain('Sinistro precoce (até 30 dias do início)')
    expect(fraud).toContain('Cliente com 2 ou mais sinistros (12 meses)')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('lists every claim by opening under "Todas"', async () => {
    await page.getByLabel('Situação').selectOption('all')
    // The previous rows stay until the new ones come.
    await expect
      .poll(() => queueNumbers(page), { timeout: 30_000 })
      .toEqual([
        numbers.completedLate,
        numbers.overdue,
        numbers.dueThisWeek,
        numbers.recent,
        numbers.awaiting,
      ])
    expect(await page.getByTestId('claims-queue').locator('caption').innerText()).toContain('mais antigos')
  })

  it('shows every column, Fraude included, at 1280×800 and each card at 390×844 without sideways scrolling', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport)
      await openScreen(page, served.base, '#/sinistros', 'Sinistros')
      await page.getByTestId('claims-queue').locator('tbody tr').nth(4).waitFor()
      const clipped = await page.evaluate(
        "(() => { const w = document.querySelector('.table-wrap'); return w.scrollWidth > w.clientWidth })()",
      )
      expect(clipped, `${viewport.width}px`).toBe(false)
      const wide = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')
      expect(wide, `${viewport.width}px`).toBe(false)
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/queue-deadline-${viewport.width}.png`,
        fullPage: true,
      })
    }
    await page.setViewportSize(DESKTOP)
  })

  it('counts on the Painel the claims overdue and due this week', async () => {
    await openScreen(page, served.base, '#/painel', 'Painel')
    expect(await page.getByTestId('overdue-count').innerText()).toBe('1')
    expect(await page.getByTestId('due-this-week-count').innerText()).toBe('1')
    expect(await page.getByTestId('owed-total').innerText()).toMatch(/R\$\s?0,00/)
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport)
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/painel-deadline-${viewport.width}.png`,
        fullPage: true,
      })
    }
    await page.setViewportSize(DESKTOP)
    expect(await seriousViolations(page)).toEqual([])
  })
})

reportMissing(CHROMIUM_TOOL)
