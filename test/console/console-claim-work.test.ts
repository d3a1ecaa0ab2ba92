import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { documentForm, pdf, png } from '../helpers/claim-documents.js'
import {
  at,
  type ClaimBody,
  call,
  ctx,
  daysAfter,
  iso,
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

// A claim worked from its page in Debian's Chromium (README, Operator console: Sinistros): a request
// for documents answered by the partner's upload, assignment → note → approval → settlement with the
// activity feed saying who did each, and the loser of a decision race reading who won.
// The console's clock starts at the world's NOW and moves a second per step, so the feed's order is
// the steps' order; the partner uploads at the console's time.

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

let served: ServedConsole
let browser: Browser
let page: Page
let s: Seller
const clock = { now: NOW.getTime() }
const tick = () => {
  clock.now += 1000
}
const adjuster = { email: 'ana@amparo.test', password: TEST_OPERATOR_PASSWORD }
const otherAdjuster = 'bruno@amparo.test'

async function openDamageClaim(): Promise<ClaimBody> {
  const claim = await ok<ClaimBody>(
    s,
    'POST',
    '/claims',
    {
      subscription_id: await paidSubscription(s, { paidAt: daysAfter(-40) }),
      type: 'accidental_damage',
      occurred_at: local(daysAfter(-1)),
      description: 'A tela quebrou após uma queda na calçada.',
    },
    201,
  )
  await upload(claim.id, 'photo', png(0x60 + (claim.id % 100)), 'tela.png', 'image/png')
  await upload(claim.id, 'invoice', pdf(`Nota fiscal ${claim.id}`), 'nota.pdf', 'application/pdf')
  return claim
}

/** The partner's upload, at the console's time. */
async function upload(id: number, kind: string, bytes: Buffer, name: string, type: string) {
  tick()
  const form = documentForm(kind, bytes, name, type)
  const response = await at(iso(clock.now), () =>
    call(s, 'POST', `/claims/${id}/documents`, form.payload, form.headers),
  )
  expect(response.statusCode, response.body).toBe(201)
}

const status = (p: Page, value: string) => p.locator(`[data-testid="claim-status"][data-status="${value}"]`)
/** The activity feed's entries as shown, newest first: `kind by-whom`. */
async function feed(p: Page): Promise<string[]> {
  return p
    .getByTestId('activity')
    .locator('li')
    .evaluateAll((items) =>
      items.map(
        (li) => `${li.getAttribute('data-kind')} ${li.querySelector('.activity-head')?.textContent ?? ''}`,
      ),
    )
}

describe.skipIf(!hasChromium)('a claim worked from its page', () => {
  beforeAll(async () => {
    s = await seller()
    served = await serveConsole(ctx, { now: () => new Date(clock.now) })
    await loginAs(ctx.db, 'adjuster', { email: adjuster.email })
    await loginAs(ctx.db, 'adjuster', { email: otherAdjuster })
    browser = await launchBrowser()
    page = await newPage(browser)
    await signIn(page, served.base, { ...adjuster, enroll: true, now: clock.now })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('asks for documents; the partner’s upload brings the claim back to review', async () => {
    const claim = await openDamageClaim()
    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    await status(page, 'under_review').waitFor()
    tick()
    const request = page.getByRole('region', { name: 'Pedir documentos' })
    await request.getByLabel('Orçamento de reparo').check()
    await request.getByLabel('Mensagem para o parceiro').fill('Envie o orçamento da assistência técnica.')
    await request.getByRole('button', { name: 'Pedir documentos' }).click()
    await page.getByText('Documentos solicitados: Orçamento de reparo.').waitFor()
    await status(page, 'documents_pending').waitFor()
    const awaited = page.getByRole('region', { name: 'Documentos pendentes' })
    await awaited.getByText('Orçamento de reparo').waitFor()
    await awaited.getByText('Envie o orçamento da assistência técnica.', { exact: false }).waitFor()
    expect(await page.getByRole('region', { name: 'Pedir documentos' }).count()).toBe(0)

    const partnerView = await ok<ClaimBody & { documents_request: unknown }>(s, 'GET', `/claims/${claim.id}`)
    expect(partnerView).toMatchObject({
      status: 'documents_pending',
      required_documents: ['repair_quote'],
      documents_request: { kinds: ['repair_quote'], message: 'Envie o orçamento da assistência técnica.' },
    })
    await upload(claim.id, 'repair_quote', pdf('Orçamento R$ 1.200,00'), 'orcamento.pdf', 'application/pdf')
    await page.reload()
    await status(page, 'under_review').waitFor()
    expect((await feed(page))[0]).toMatch(/^document_received Documento recebido/)
    expect(await feed(page)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^documents_requested Documentos solicitados · ana@amparo\.test/),
      ]),
    )
  })

  it('assign → note → approve → settle: the activity feed shows each step and who', async () => {
    const claim = await openDamageClaim()
    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    tick()
    await page.getByRole('button', { name: 'Atribuir a mim' }).click()
    await page.getByTestId('assignee').getByText('Você (ana@amparo.test)').waitFor()
    tick()
    await page
      .getByRole('textbox', { name: 'Nota interna' })
      .fill('Orçamento compatível com o dano relatado.')
    await page.getByRole('button', { name: 'Adicionar nota' }).click()
    await page.getByText('Orçamento compatível com o dano relatado.').waitFor()
    tick()
    await page.getByLabel('Forma de liquidação').selectOption('repair')
    await page.getByLabel('Valor aprovado (R$)').fill('1.200,00')
    await page.getByRole('button', { name: 'Revisar aprovação' }).click()
    expect(await page.getByTestId('others-claim').count()).toBe(0)
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await status(page, 'approved').waitFor()
    tick()
    await page.getByLabel(/Referência/).fill('OS-2026-0042')
    await page.getByRole('button', { name: 'Revisar liquidação' }).click()
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await status(page, 'settled').waitFor()
    await page.getByTestId('activity').locator('li[data-kind="settled"]').waitFor()

    const { name: partner } = await ctx.db
      .selectFrom('partners')
      .select('name')
      .where('id', '=', s.partner.id)
      .executeTakeFirstOrThrow()
    const entries = await feed(page)
    expect(entries.map((e) => e.split(' ')[0])).toEqual([
      'settled',
      'approved',
      'note',
      'assigned',
      'document_received',
      'document_received',
      'opened',
    ])
    for (const entry of entries.slice(0, 4)) expect(entry).toContain('ana@amparo.test')
    expect(entries.at(-1)).toContain(`${partner} (parceiro)`)
    expect(await page.getByTestId('decided-by').textContent()).toBe('ana@amparo.test')
    await page.screenshot({
      path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/claim-work-1280.png`,
      fullPage: true,
    })
    expect(await seriousViolations(page)).toEqual([])
  })

  it('warns before deciding another’s claim, and the race’s loser reloads to who decided what and when', async () => {
    const claim = await openDamageClaim()
    const bruno = await loginAs(ctx.db, 'adjuster', { email: 'bruno-session@amparo.test' })
    const brunoId = (
      await ctx.db
        .selectFrom('operators')
        .select('id')
        .where('email', '=', 'bruno-session@amparo.test')
        .executeTakeFirstOrThrow()
    ).id
    tick()
    const taken = await served.console.inject({
      method: 'POST',
      url: `/api/claims/${claim.id}/assignee`,
      headers: bruno,
      payload: { assignee_id: brunoId },
    })
    expect(taken.statusCode, taken.body).toBe(200)

    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    await page.getByTestId('assignee').getByText('bruno-session@amparo.test').waitFor()
    await page.getByLabel('Forma de liquidação').selectOption('repair')
    await page.getByLabel('Valor aprovado (R$)').fill('900,00')
    await page.getByRole('button', { name: 'Revisar aprovação' }).click()
    await page
      .getByTestId('others-claim')
      .getByText(/atribuído a bruno-session@amparo\.test/)
      .waitFor()

    tick()
    const denied = await served.console.inject({
      method: 'POST',
      url: `/api/claims/${claim.id}/deny`,
      headers: bruno,
      payload: { reason_code: 'not_covered', note: 'Dano anterior à contratação.' },
    })
    expect(denied.statusCode, denied.body).toBe(200)
    tick()
    await page.getByRole('button', { name: 'Decidir mesmo assim' }).click()
    const message = page.getByTestId('claim-message').getByRole('alert')
    await message
      .getByText(/Outro operador decidiu antes: Negado por bruno-session@amparo\.test em \d\d\/\d\d\/\d{4}/)
      .waitFor()
    await status(page, 'denied').waitFor()
    expect(await page.getByRole('button', { name: 'Revisar aprovação' }).count()).toBe(0)
    expect(await page.getByTestId('decided-by').textContent()).toBe('bruno-session@amparo.test')
    expect(await message.textContent()).not.toMatch(/409|decision_conflict/)
    expect(await page.evaluate("document.activeElement?.getAttribute('data-testid')")).toBe('claim-message')
  })

  it('lays the claim’s page out at 390×844 without sideways scrolling', async () => {
    const [claim] = await ctx.db
      .selectFrom('claims')
      .select(['id', 'number'])
      .orderBy('id')
      .limit(1)
      .execute()
    if (!claim) throw new Error('no claim')
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport)
      await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
      const wide = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')
      expect(wide, `${viewport.width}px`).toBe(false)
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/claim-work-${viewport.width}.png`,
        fullPage: true,
      })
      await openScreen(page, served.base, '#/sinistros?assignee=none', 'Sinistros')
      await page.screenshot({
        path: `${process.env.AMPARO_SCREENSHOTS ?? '/tmp'}/queue-${viewport.width}.png`,
      })
    }
  })
})

reportMissing(CHROMIUM_TOOL)
