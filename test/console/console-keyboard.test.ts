import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { retryingTransaction } from '../../src/db/transaction.js'
import { documentForm, pdf, png } from '../helpers/claim-documents.js'
import {
  type ClaimBody,
  call,
  ctx,
  NOW,
  openClaim,
  paidAnnualPlan,
  paidSubscription,
  type Seller,
  seller,
  theft,
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
  SCREENS,
  seriousViolations,
  signIn,
} from './browser.js'
import { type ServedConsole, serveConsole } from './serve.js'

// The console by keyboard and on a phone (README, Operator console: keys and phones): the focus on
// each confirmation and on its result, never left on the page's body; `/` and `j`/`k`/Enter; every
// screen at 390×844 with each of its actions in view, nothing scrolled sideways; axe-core on each.

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

let served: ServedConsole
let browser: Browser
let page: Page
let s: Seller
let claims: ClaimBody[] = []
let refundId = 0
const admin = { email: 'chefe-teclado@amparo.test', password: TEST_OPERATOR_PASSWORD }

/** What has the focus: its tag, text, test id, and whether it sits in an element matching `within`. */
async function focus(p: Page, within = 'body *') {
  return (await p.evaluate(`(() => {
    const el = document.activeElement
    return {
      tag: el ? el.tagName.toLowerCase() : null,
      text: el ? (el.textContent || '').replace(/\\s+/g, ' ').trim() : '',
      inside: !!el && !!el.closest(${JSON.stringify(within)}),
    }
  })()`)) as { tag: string | null; text: string; inside: boolean }
}

/** Waits until the focus is in `within` (not on the body), its text matching `text` if given. */
async function focusMovesTo(p: Page, within: string, text?: RegExp) {
  await expect.poll(async () => (await focus(p, within)).inside, { timeout: 30_000 }).toBe(true)
  if (text) expect((await focus(p, within)).text).toMatch(text)
}

/** A theft claim with the documents it requires uploaded: under review, the decision form shown. */
async function claimUnderReview(): Promise<ClaimBody> {
  const claim = await openClaim(s, theft(await paidSubscription(s)))
  for (const kind of claim.required_documents) {
    const form =
      kind === 'photo'
        ? documentForm(kind, png(claim.id % 250), 'foto.png', 'image/png')
        : documentForm(kind, pdf(`${kind} ${claim.id}`), `${kind}.pdf`, 'application/pdf')
    const response = await call(s, 'POST', `/claims/${claim.id}/documents`, form.payload, form.headers)
    expect(response.statusCode, response.body).toBe(201)
  }
  return claim
}

describe.skipIf(!hasChromium)('operator console by keyboard and on a phone', () => {
  beforeAll(async () => {
    s = await seller()
    claims = []
    for (let i = 0; i < 3; i++) claims.push(await claimUnderReview())
    // A refund the gateway gave up on, for Reembolsos' "Tentar de novo".
    const planId = await paidAnnualPlan(s)
    const at = NOW.toISOString()
    const refund = await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('annual_plan_refunds')
        .values({
          annual_plan_id: planId,
          partner_id: s.partner.id,
          amount: 41_250,
          status: 'failed',
          attempts: 9,
          next_attempt_at: at,
          give_up_at: at,
          locked_until: null,
          last_error: 'gateway_unavailable',
          payment_reference: 'pi_keyboard_test',
          gateway_refund_id: null,
          refunded_at: null,
          created_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
    refundId = refund.id
    served = await serveConsole(ctx, { now: () => NOW })
    await loginAs(ctx.db, 'admin', { email: admin.email })
    await loginAs(ctx.db, 'adjuster', { email: 'regulador-teclado@amparo.test' })
    browser = await launchBrowser()
    page = await newPage(browser)
    await signIn(page, served.base, admin)
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('reaches the skip link first by Tab, and it focuses the content of the screen', async () => {
    await openScreen(page, served.base, '#/parceiros', 'Parceiros')
    await page.keyboard.press('Tab')
    expect((await focus(page, 'a.skip')).inside).toBe(true)
    await page.keyboard.press('Enter')
    await focusMovesTo(page, '#conteudo')
    expect(new URL(page.url()).hash).toBe('#/parceiros')
  })

  it('shows every action of every screen at 390×844 without scrolling sideways; tables at 1280', async () => {
    const phone = await newPage(browser, PHONE)
    await signIn(phone, served.base, admin)
    const open = claims[2] as ClaimBody
    const screens = [
      ...SCREENS,
      { name: 'reembolsos pendentes', hash: '#/reembolsos?status=pending', heading: 'Reembolsos' },
      { name: 'sinistro', hash: `#/sinistros/${open.id}`, heading: `Sinistro ${open.number}` },
      { name: 'parceiro', hash: `#/parceiros/${s.partner.id}`, heading: /./ },
      { name: 'busca-resultado', hash: `#/busca?q=${s.customer.document}`, heading: 'Busca' },
    ]
    const problems: Record<string, unknown> = {}
    const seen = new Set<string>()
    for (const screen of screens) {
      await openScreen(phone, served.base, screen.hash, screen.heading)
      if (screen.name === 'busca-resultado') await phone.getByTestId('customer').first().waitFor()
      if (screen.name === 'parceiro') await phone.getByTestId('credentials').waitFor()
      if (screen.name === 'painel')
        await phone.getByTestId('loss-table').locator('tbody tr[data-partner]').first().waitFor()
      const layout = await actionsInView(phone)
      for (const action of layout.inView) seen.add(action)
      if (layout.scrollWidth > layout.width || layout.outside.length > 0) problems[screen.name] = layout
      const axe = await seriousViolations(phone)
      if (axe.length > 0) problems[`${screen.name} (axe)`] = axe
    }
    expect(problems).toEqual({})
    // The actions a phone used to lose off-screen, now in view.
    for (const action of [
      'Revogar',
      'Desativar',
      'Tentar de novo',
      'Revisar aprovação',
      'Operadores',
      'Sair',
    ]) {
      expect(
        [...seen].some((name) => name.startsWith(action)),
        action,
      ).toBe(true)
    }
    // The dashboard's loss ratio in view, under its column's name.
    await openScreen(phone, served.base, '#/painel', 'Painel')
    const ratio = phone.getByTestId('loss-table').locator('td[data-label="Índice"]').first()
    const box = await ratio.boundingBox()
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true)
    await phone.context().close()

    // At a desk the admin tables stay tables, their headers shown.
    await page.setViewportSize(DESKTOP)
    for (const [hash, table] of [
      ['#/operadores', 'operators'],
      ['#/reembolsos?status=pending', 'refunds'],
      ['#/auditoria', 'audit'],
    ] as const) {
      await page.goto(`${served.base}/${hash}`)
      await page.getByTestId(table).locator('thead').waitFor({ state: 'visible' })
    }
  })

  it('moves the focus to each confirmation of a decision, back on Cancelar, then to its result', async () => {
    const [claim] = claims as [ClaimBody]
    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    await page.getByLabel('Valor aprovado (R$)').fill('1.000,00')
    await page.getByRole('button', { name: 'Revisar aprovação' }).press('Enter')
    await focusMovesTo(page, '[role="alertdialog"]', /^Aprovar R\$/)
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Cancelar' }).press('Enter')
    await focusMovesTo(page, 'button[type="submit"]', /^Revisar aprovação$/)

    // By keyboard alone: Enter on the form's button, Tab to Confirmar, Enter.
    await page.keyboard.press('Enter')
    await focusMovesTo(page, '[role="alertdialog"]')
    await page.keyboard.press('Tab')
    expect((await focus(page)).text).toBe('Confirmar')
    await page.keyboard.press('Enter')
    await focusMovesTo(page, '[data-testid="claim-message"]', /^Sinistro aprovado: R\$/)

    await page.getByLabel(/Referência/).fill('OS-2026-7788')
    await page.getByRole('button', { name: 'Revisar liquidação' }).press('Enter')
    await focusMovesTo(page, '[role="alertdialog"]', /Liquidar com a referência/)
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await focusMovesTo(page, '[data-testid="claim-message"]', /^Sinistro concluído\.$/)
    await page.locator('[data-testid="claim-status"][data-status="settled"]').waitFor()
  })

  it('moves the focus to who works the claim after Atribuir a mim and Liberar, and to a request’s result', async () => {
    const claim = claims[1] as ClaimBody
    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    await page.getByRole('button', { name: 'Atribuir a mim' }).press('Enter')
    await focusMovesTo(page, '[data-testid="assignee"]', /^Você/)
    await page.getByRole('button', { name: 'Liberar' }).press('Enter')
    await focusMovesTo(page, '[data-testid="assignee"]', /Sem responsável/)

    await page.getByLabel('Nota fiscal', { exact: true }).check()
    await page.getByLabel('Mensagem para o parceiro').fill('Envie a nota fiscal do aparelho, por favor.')
    await page.getByRole('button', { name: 'Pedir documentos' }).press('Enter')
    await focusMovesTo(page, '[data-testid="claim-message"]', /^Documentos solicitados: Nota fiscal\.$/)
  })

  it('moves the focus through issuing and revoking a credential', async () => {
    await openScreen(page, served.base, `#/parceiros/${s.partner.id}`, /./)
    await page.getByRole('heading', { name: 'Credenciais' }).waitFor()
    await page.getByRole('button', { name: 'Emitir credencial' }).press('Enter')
    await focusMovesTo(page, '[data-testid="issued-secret"]', /Copie o segredo agora/)
    const clientId = (await page.getByTestId('issued-client-id').textContent()) ?? ''
    await page.getByRole('button', { name: 'Já copiei' }).press('Enter')
    await focusMovesTo(page, 'button', /^Emitir credencial$/)

    const row = page.locator(`tr[data-client-id="${clientId}"]`)
    await row.getByRole('button', { name: /^Revogar/ }).press('Enter')
    await focusMovesTo(page, `tr[data-client-id="${clientId}"] fieldset`, /Revogar a credencial/)
    await row.getByRole('button', { name: 'Cancelar' }).press('Enter')
    await focusMovesTo(page, `tr[data-client-id="${clientId}"] button`, /^Revogar/)
    await page.keyboard.press('Enter')
    await focusMovesTo(page, `tr[data-client-id="${clientId}"] fieldset`)
    await page.keyboard.press('Tab')
    expect((await focus(page)).text).toMatch(/^Confirmar revogação/)
    await page.keyboard.press('Enter')
    await focusMovesTo(page, '[role="status"]', new RegExp(`^Credencial ${clientId} revogada\\.$`))
    await row.getByText(/revogada/).waitFor()
  })

  it("moves the focus to an operator's password, back to the row, and to a disabling's confirmation and result", async () => {
    await openScreen(page, served.base, '#/operadores', 'Operadores')
    const email = 'novo-teclado@amparo.test'
    await page.getByLabel('E-mail').fill(email)
    await page.getByRole('button', { name: 'Criar operador' }).press('Enter')
    await focusMovesTo(page, '.secret-box', new RegExp(`Senha provisória de ${email}`))
    await page.getByRole('button', { name: 'Já copiei' }).press('Enter')
    await focusMovesTo(page, 'button', new RegExp(`^Nova senha para ${email}$`))

    // Disabling is confirmed first, in the page: the focus goes to the confirmation, then its result.
    await page.getByRole('button', { name: `Desativar ${email}` }).press('Enter')
    await focusMovesTo(page, '[role="alertdialog"]', /^Confirmar desativação$/)
    await page.keyboard.press('Enter')
    await focusMovesTo(page, '[role="status"]', new RegExp(`^${email} desativado\\.$`))
  })

  it('moves the focus to the result of a refund retried', async () => {
    await openScreen(page, served.base, '#/reembolsos?status=failed', 'Reembolsos')
    await page
      .locator(`tr[data-refund="${refundId}"]`)
      .getByRole('button', { name: /Tentar de novo/ })
      .press('Enter')
    await focusMovesTo(page, '[role="status"]', new RegExp(`^Reembolso ${refundId}: nova tentativa`))
  })

  it('focuses the search with /, from any screen, unless one types in a field', async () => {
    await openScreen(page, served.base, '#/painel', 'Painel')
    await page.locator('body').press('/')
    await page.getByRole('heading', { level: 1, name: 'Busca' }).waitFor()
    await focusMovesTo(page, 'input[type="search"]')
    await page.keyboard.type('a/b')
    expect(await page.getByRole('searchbox').inputValue()).toBe('a/b')
    await page.getByRole('heading', { level: 1, name: 'Busca' }).click()
    expect((await focus(page, 'input')).inside).toBe(false)
    await page.keyboard.press('/')
    await focusMovesTo(page, 'input[type="search"]')
  })

  it('moves the selection in the claims queue with j and k, and opens the selected claim with Enter', async () => {
    // Every claim, not only the open ones the queue opens on: the world has three or more.
    await openScreen(page, served.base, '#/sinistros?status=all', 'Sinistros')
    const rows = page.getByTestId('claims-queue').locator('tbody tr[data-claim]')
    await rows.first().waitFor()
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-claim')))
    expect(ids.length).toBeGreaterThanOrEqual(3)
    const selected = () =>
      page.getByTestId('claims-queue').locator('tr[aria-selected="true"]').getAttribute('data-claim')

    // Typed into a filter, j is the field's.
    await page.getByLabel('Só com sinal de fraude').focus()
    await page.keyboard.press('j')
    expect(await page.locator('tr[aria-selected="true"]').count()).toBe(0)

    await page.getByRole('heading', { level: 1, name: 'Sinistros' }).click()
    await page.keyboard.press('j')
    expect(await selected()).toBe(ids[0])
    await page.keyboard.press('j')
    await page.keyboard.press('j')
    expect(await selected()).toBe(ids[2])
    await page.keyboard.press('k')
    expect(await selected()).toBe(ids[1])
    // The focus is on the selected claim's link, shown; one row selected.
    await focusMovesTo(page, `tr[data-claim="${ids[1]}"] a`)
    expect(await page.locator('tr[aria-selected="true"]').count()).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: /^Sinistro / }).waitFor()
    expect(new URL(page.url()).hash).toBe(`#/sinistros/${ids[1]}`)

    // Enter elsewhere on the queue opens the selected claim too.
    await openScreen(page, served.base, '#/sinistros?status=all', 'Sinistros')
    await rows.first().waitFor()
    await page.getByRole('heading', { level: 1, name: 'Sinistros' }).click()
    await page.keyboard.press('j')
    await page.getByRole('heading', { level: 1, name: 'Sinistros' }).click()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: /^Sinistro / }).waitFor()
    expect(new URL(page.url()).hash).toBe(`#/sinistros/${ids[0]}`)
  })
})

reportMissing(CHROMIUM_TOOL)

/**
 * The page's width, its scrolling width, the names of its actions (links, buttons, fields) in
 * view, and those outside the viewport's width (the skip link and screen-reader text aside).
 */
async function actionsInView(p: Page) {
  return (await p.evaluate(`(() => {
    const width = window.innerWidth
    const inView = []
    const outside = []
    for (const el of document.querySelectorAll('a[href], button, input, select, textarea, [tabindex="0"]')) {
      if (el.closest('.sr-only, .skip')) continue
      const box = el.getBoundingClientRect()
      if (box.width < 2 || box.height < 2) continue
      const name = ((el.textContent || '').trim() || el.getAttribute('aria-label') || el.tagName).replace(/\\s+/g, ' ').slice(0, 60)
      if (box.left < -0.5 || box.right > width + 0.5) outside.push(name + ' [' + Math.round(box.left) + ', ' + Math.round(box.right) + ']')
      else inView.push(name)
    }
    return { width, scrollWidth: document.scrollingElement.scrollWidth, inView, outside }
  })()`)) as { width: number; scrollWidth: number; inView: string[]; outside: string[] }
}
