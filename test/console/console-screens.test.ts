import type { Browser, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { retryingTransaction } from '../../src/db/transaction.js'
import { deliverWebhooksOnce } from '../../src/worker/webhooks.job.js'
import { documentForm, pdf, png } from '../helpers/claim-documents.js'
import {
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
import { type Receiver, startReceiver } from '../helpers/receiver.js'
import {
  CHROMIUM_TOOL,
  DESKTOP,
  freshTotpCode,
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

// The operator console in Debian's Chromium (README, Operator console): sign-in with TOTP, a claim
// opened through the partner API decided and settled from its screen (and its webhooks delivered),
// and axe-core on every screen at 1280×800 and 390×844. One browser for the file; the console app
// listens on a free port over the claims world's database, on its clock (fixed at NOW).

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

let served: ServedConsole
let browser: Browser
let page: Page
let receiver: Receiver
let s: Seller
let claim: ClaimBody
let contested: ClaimBody
let totpSecret = ''
const adjuster = { email: 'regulador@amparo.test', password: TEST_OPERATOR_PASSWORD }

/** The TOTP codes follow the console's clock (the world's NOW), not the machine's. */
const at = { now: NOW.getTime() }

describe.skipIf(!hasChromium)('operator console in Chromium', () => {
  beforeAll(async () => {
    receiver = await startReceiver()
    s = await seller()
    await ok(s, 'POST', '/webhook-endpoints', { url: receiver.url('/hooks') }, 201)
    const subscriptionId = await paidSubscription(s, { paidAt: daysAfter(-40) })
    claim = await ok<ClaimBody>(
      s,
      'POST',
      '/claims',
      {
        subscription_id: subscriptionId,
        type: 'accidental_damage',
        occurred_at: local(daysAfter(-1)),
        description: 'A tela quebrou após uma queda na calçada.',
      },
      201,
    )
    for (const [kind, bytes, name, type] of [
      ['photo', png(0x40), 'tela.png', 'image/png'],
      ['invoice', pdf('Nota fiscal'), 'nota.pdf', 'application/pdf'],
    ] as const) {
      const upload = documentForm(kind, bytes, name, type)
      const response = await call(s, 'POST', `/claims/${claim.id}/documents`, upload.payload, upload.headers)
      expect(response.statusCode, response.body).toBeLessThan(300)
    }
    // A second claim, on another contract, that another adjuster decides while the screen is open.
    contested = await ok<ClaimBody>(
      s,
      'POST',
      '/claims',
      {
        subscription_id: await paidSubscription(s, { paidAt: daysAfter(-40) }),
        type: 'robbery',
        occurred_at: local(daysAfter(-1)),
        description: 'Celular roubado na saída do metrô.',
        police_report: { number: 'BO-2026-0001', issued_on: '2026-11-20' },
      },
      201,
    )
    served = await serveConsole(ctx, { now: () => new Date(at.now) })
    await loginAs(ctx.db, 'admin', { email: 'admin@amparo.test' })
    await loginAs(ctx.db, 'adjuster', { email: adjuster.email })
    browser = await launchBrowser()
    page = await newPage(browser)
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
    await receiver?.close()
  })

  it('signs in with a TOTP code: enrols from the QR screen, then asks for the code', async () => {
    totpSecret = await signIn(page, served.base, { ...adjuster, enroll: true, now: at.now })
    expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/)
    await expect(page.getByRole('navigation', { name: 'Seções' })).toBeDefined()
    await page.getByRole('button', { name: 'Sair' }).click()
    await page.getByRole('heading', { name: 'Entrar' }).waitFor()
    await page.getByLabel('E-mail').fill(adjuster.email)
    await page.getByLabel('Senha').fill(adjuster.password)
    await page.getByRole('button', { name: 'Entrar' }).click()
    await page.getByRole('heading', { name: 'Código de verificação' }).waitFor()
    await signInCode(page, totpSecret)
    // An adjuster sees no admin sections.
    expect(await page.getByRole('link', { name: 'Operadores' }).count()).toBe(0)
  })

  it('approves and settles the claim from its page, the payable shown first; the webhooks arrive', async () => {
    await openScreen(page, served.base, '#/sinistros', 'Sinistros')
    await page.getByRole('link', { name: claim.number }).click()
    await page.getByRole('heading', { name: `Sinistro ${claim.number}` }).waitFor()
    expect(await page.getByTestId('claim-status').getAttribute('data-status')).toBe('under_review')
    await page.locator('img[src$="/documents/1"], .doc img').first().waitFor()
    // The PDF is drawn by pdf.js (console-documents.test.ts), never framed.
    await page.getByTestId('pdf-viewer').waitFor()
    expect(await page.locator('.doc iframe').count()).toBe(0)
    // From here on the claim is not read again: each decision's answer is the claim the page shows.
    const claimPath = `/api/claims/${claim.id}`
    const claimCalls: string[] = []
    const recordCall = (request: Request) => {
      const { pathname } = new URL(request.url())
      const decision = request.method() === 'POST' && pathname.startsWith(`${claimPath}/`)
      if (pathname === claimPath || decision) claimCalls.push(`${request.method()} ${pathname}`)
    }
    page.on('request', recordCall)

    const detail = await served.console.inject({
      method: 'GET',
      url: `/api/claims/${claim.id}`,
      headers: await loginAs(ctx.db, 'viewer'),
    })
    const preview = detail.json().payable_preview as { franchise_cents: number; lmi_cents: number }
    // Times in the service's zone, whatever the browser's (this one's is UTC); the contract by its
    // policy number, the partner's id and name beside it; the timeline's events in words.
    const inZone = new Intl.DateTimeFormat('pt-BR', {
      dateStyle: 'short',
      timeStyle: 'short',
      timeZone: ctx.config.timeZone,
    })
    await page.getByText(`aberto em ${inZone.format(new Date(detail.json().opened_at))}`).waitFor()
    const contract = detail.json().contract as { id: number; policy_number: string; paid_with: string }
    expect(await page.getByTestId('policy-number').textContent()).toBe(contract.policy_number)
    // How it was paid, in words (the partner notified its first installment).
    expect(contract.paid_with).toBe('external')
    expect(await page.getByTestId('paid-with').textContent()).toBe('Pago ao parceiro')
    await page.getByText(`Assinatura ${contract.id} · ${detail.json().partner.name}`).waitFor()
    expect(await page.locator('.timeline').textContent()).toContain('Assinatura ativada')
    expect(await page.locator('main').textContent()).not.toMatch(/UTC|subscription\.|installment\.|Número/)
    const approved = Math.min(preview.lmi_cents, 200_000)
    await page.getByLabel('Forma de liquidação').selectOption('repair')
    await page.getByLabel('Valor aprovado (R$)').fill((approved / 100).toFixed(2).replace('.', ','))
    const payable = Math.max(0, approved - preview.franchise_cents)
    expect(await page.getByTestId('payable').textContent()).toBe(brl(payable))
    await page.getByRole('button', { name: 'Revisar aprovação' }).click()
    await page.getByText(`Valor a pagar: ${brl(payable)}`).waitFor()
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page.getByText(/^Sinistro aprovado: R\$/).waitFor()
    await page.locator('[data-testid="claim-status"][data-status="approved"]').waitFor()

    await page.getByLabel(/Referência/).fill('OS-2026-4411')
    await page.getByRole('button', { name: 'Revisar liquidação' }).click()
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page.locator('[data-testid="claim-status"][data-status="settled"]').waitFor()
    page.off('request', recordCall)
    expect(claimCalls).toEqual([`POST ${claimPath}/approve`, `POST ${claimPath}/settle`])

    const row = await ctx.db
      .selectFrom('claims')
      .select(['status', 'approved_amount', 'payable_amount'])
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'settled', approved_amount: approved, payable_amount: payable })

    await deliverWebhooksOnce({
      db: ctx.db,
      clock: { now: () => new Date(at.now) },
      timeZone: ctx.config.timeZone,
      env: 'test',
      timeoutMs: 5000,
    })
    const types = receiver.at('/hooks').map((r) => JSON.parse(r.body).type as string)
    expect(types).toEqual(expect.arrayContaining(['claim.approved', 'claim.settled']))
  })

  it('reloads the claim when another adjuster decided it first, saying who decided what', async () => {
    await openScreen(page, served.base, `#/sinistros/${contested.id}`, `Sinistro ${contested.number}`)
    await page.getByLabel('Negar').check()
    await page.getByLabel('Nota para o parceiro').fill('Sem cobertura para este caso.')
    await page.getByRole('button', { name: 'Revisar negativa' }).click()
    const other = await served.console.inject({
      method: 'POST',
      url: `/api/claims/${contested.id}/deny`,
      headers: await loginAs(ctx.db, 'adjuster'),
      payload: { reason_code: 'other', note: 'Decidido por outro regulador.' },
    })
    expect(other.statusCode, other.body).toBe(200)
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page
      .getByRole('alert')
      .getByText(/Outro operador decidiu antes: Negado por adjuster-/)
      .waitFor()
    await page.locator('[data-testid="claim-status"][data-status="denied"]').waitFor()
  })

  it('skips to the content of the screen it is on, by keyboard, without leaving it', async () => {
    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    await page.getByRole('link', { name: 'Pular para o conteúdo' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('conteudo')
    expect(new URL(page.url()).hash).toBe(`#/sinistros/${claim.id}`)
    await page.getByRole('heading', { name: `Sinistro ${claim.number}` }).waitFor()
  })

  it('has no serious or critical axe-core violation on any screen, at 1280×800 and 390×844', async () => {
    const admin = await newPage(browser)
    await signIn(admin, served.base, { email: 'admin@amparo.test', password: TEST_OPERATOR_PASSWORD })
    const findings: Record<string, unknown> = {}
    for (const viewport of [DESKTOP, PHONE]) {
      await admin.setViewportSize(viewport)
      const screens = [
        ...SCREENS,
        { name: 'sinistro', hash: `#/sinistros/${claim.id}`, heading: `Sinistro ${claim.number}` },
        { name: 'parceiro', hash: `#/parceiros/${s.partner.id}`, heading: /./ },
      ]
      for (const screen of screens) {
        await openScreen(admin, served.base, screen.hash, screen.heading)
        const found = await seriousViolations(admin)
        if (found.length > 0) findings[`${screen.name}@${viewport.width}`] = found
      }
    }
    await admin.getByRole('button', { name: 'Sair' }).click()
    await admin.getByRole('heading', { name: 'Entrar' }).waitFor()
    const login = await seriousViolations(admin)
    if (login.length > 0) findings.entrar = login
    expect(findings).toEqual({})
    await admin.context().close()
  })

  it('sends a stale session back to the sign-in screen', async () => {
    await retryingTransaction(ctx.db, (trx) => trx.deleteFrom('operator_sessions').execute())
    at.now += 120_000 // a later TOTP step: each step's code is taken once, in order
    await page.goto(`${served.base}/#/painel`)
    await page.reload()
    await page.getByRole('heading', { name: 'Entrar' }).waitFor()
    // Mid-session: a screen's call answered 401 brings the sign-in back, saying why.
    await signIn(page, served.base, { ...adjuster, totpSecret, now: at.now })
    // The landing screen's own calls answered first: on a busy machine one still in flight would
    // meet the deleted session and bring the sign-in back before the click.
    await page.waitForLoadState('networkidle')
    await retryingTransaction(ctx.db, (trx) => trx.deleteFrom('operator_sessions').execute())
    await page.getByRole('link', { name: 'Sinistros', exact: true }).click()
    await page.getByText('Sua sessão expirou').waitFor()
  })
})

reportMissing(CHROMIUM_TOOL)

const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
const brl = (cents: number) => money.format(cents / 100)

async function signInCode(p: Page, secret: string) {
  await p.getByLabel('Código').fill(freshTotpCode(secret, at.now))
  await p.getByRole('button', { name: 'Confirmar' }).click()
  await p.getByRole('navigation', { name: 'Seções' }).waitFor()
}
