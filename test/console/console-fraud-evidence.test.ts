import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { documentForm, jpeg, pdf } from '../helpers/claim-documents.js'
import {
  at,
  type ClaimBody,
  call,
  ctx,
  daysAfter,
  iso,
  local,
  NOW,
  openClaim,
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

// A fraud signal and its evidence on a claim's page, in Debian's Chromium (README, Operator console:
// Sinistros): the same photo sent by two partners for two customers marks the second claim
// `reused_document`, shown with a link to the first claim, under the other partner.

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

let served: ServedConsole
let browser: Browser
let page: Page
let first: Seller
let second: Seller
let earlier: ClaimBody
let later: ClaimBody
const clock = { now: NOW.getTime() }
const viewer = { email: 'vera@amparo.test', password: TEST_OPERATOR_PASSWORD }

async function damageClaim(s: Seller): Promise<ClaimBody> {
  return openClaim(s, {
    subscription_id: await paidSubscription(s, { paidAt: daysAfter(-40) }),
    type: 'accidental_damage',
    occurred_at: local(daysAfter(-1)),
    description: 'A tela quebrou após uma queda na calçada.',
  })
}

async function upload(s: Seller, id: number, kind: string, bytes: Buffer, name: string, type: string) {
  clock.now += 1000
  const form = documentForm(kind, bytes, name, type)
  const response = await at(iso(clock.now), () =>
    call(s, 'POST', `/claims/${id}/documents`, form.payload, form.headers),
  )
  expect(response.statusCode, response.body).toBe(201)
}

const partnerName = async (id: number) =>
  (await ctx.db.selectFrom('partners').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name

describe.skipIf(!hasChromium)('a fraud signal with its evidence', () => {
  beforeAll(async () => {
    first = await seller()
    second = await seller()
    const photo = jpeg(`foto-repetida-${process.pid}`)
    earlier = await damageClaim(first)
    await upload(first, earlier.id, 'photo', photo, 'tela.jpg', 'image/jpeg')
    await upload(first, earlier.id, 'invoice', pdf(`Nota ${earlier.id}`), 'nota.pdf', 'application/pdf')
    later = await damageClaim(second)
    await upload(second, later.id, 'photo', photo, 'foto-da-tela.jpg', 'image/jpeg')
    await upload(second, later.id, 'invoice', pdf(`Nota ${later.id}`), 'nota.pdf', 'application/pdf')

    served = await serveConsole(ctx, { now: () => new Date(clock.now) })
    await loginAs(ctx.db, 'viewer', { email: viewer.email })
    browser = await launchBrowser()
    page = await newPage(browser)
    await signIn(page, served.base, { ...viewer, enroll: true, now: clock.now })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('shows reused_document on the second claim, linked to the first under the other partner', async () => {
    await openScreen(page, served.base, `#/sinistros/${later.id}`, `Sinistro ${later.number}`)
    const signals = page.getByRole('region', { name: 'Sinais de fraude' })
    const signal = signals.locator('li[data-signal="reused_document"]')
    await signal.getByText('Documento já enviado em sinistro de outro cliente').waitFor()
    expect(await signals.locator('li[data-signal]').count()).toBe(1)
    const firstPartner = await partnerName(first.partner.id)
    expect(firstPartner).not.toBe(await partnerName(second.partner.id))
    await signal.getByText(firstPartner, { exact: false }).first().waitFor()
    await signal
      .getByText('Mesmo arquivo: “foto-da-tela.jpg” neste sinistro e “tela.jpg” (Foto do aparelho) naquele')
      .waitFor()
    expect(await seriousViolations(page)).toEqual([])

    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport)
      const wide = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')
      expect(wide, `${viewport.width}px`).toBe(false)
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/claim-evidence-${viewport.width}.png`,
        fullPage: true,
      })
    }
    expect(await seriousViolations(page)).toEqual([])

    await signal.getByRole('link', { name: `Sinistro ${earlier.number}` }).click()
    await page.getByRole('heading', { level: 1, name: `Sinistro ${earlier.number}` }).waitFor()
    expect(page.url()).toContain(`#/sinistros/${earlier.id}`)
    await page.getByText('Carregando…').waitFor({ state: 'detached' })
    // The claim whose file came first carries no signal.
    expect(await page.getByRole('region', { name: 'Sinais de fraude' }).count()).toBe(0)
  })
})

reportMissing(CHROMIUM_TOOL)
