import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loginAs, TEST_OPERATOR_PASSWORD } from '../helpers/console.js'
import { reportMissing } from '../helpers/machine-tools.js'
import { useTestApp } from '../helpers/test-app.js'
import {
  CHROMIUM_TOOL,
  DESKTOP,
  freshTotpCode,
  hasChromium,
  launchBrowser,
  newPage,
  openScreen,
  PHONE,
  seriousViolations,
  signIn,
} from './browser.js'
import { type ServedConsole, serveConsole } from './serve.js'

// Operators' passwords in Chromium (README, Operator console): an admin creates an operator, whose
// one-time password opens only its change at the first sign-in; the operator changes its own
// password later with a code; the admin's resets, each confirmed, focus on the confirmation and
// then on its result. axe-core on each screen. One browser for the file.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })
const ctx = useTestApp({ env: { AMPARO_LOGIN_RATE_LIMIT: '100000', AMPARO_RATE_LIMIT: '100000' } })
const SHOTS = process.env.AMPARO_SCREENSHOTS ?? '/tmp'

let served: ServedConsole
/** The console's clock: each TOTP code is good once, so a step passes between two of them. */
let nowMs = Date.now()
const clock = { now: () => new Date(nowMs) }
const nextStep = () => {
  nowMs += 30_000
  return nowMs
}
let browser: Browser
let admin: Page
let nova: Page
const NOVA = 'nova@amparo.test'
let oneTime = ''
let totpSecret = ''
const OWN = 'minha senha escolhida'
const LATER = 'outra senha minha agora'

/** The text of the focused element (its accessible text, as a screen reader would start reading). */
const focused = (page: Page) => page.evaluate('document.activeElement?.textContent ?? ""') as Promise<string>
const status = (page: Page, path: string) =>
  page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.status)`) as Promise<number>

async function noSidewaysScroll(page: Page) {
  expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(false)
}

describe.skipIf(!hasChromium)('operators’ passwords in Chromium', () => {
  beforeAll(async () => {
    served = await serveConsole(ctx, clock)
    await loginAs(ctx.db, 'admin', { email: 'chefe@amparo.test' })
    browser = await launchBrowser()
    admin = await newPage(browser)
    nova = await newPage(browser)
    await signIn(admin, served.base, {
      email: 'chefe@amparo.test',
      password: TEST_OPERATOR_PASSWORD,
      now: nowMs,
    })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('an admin creates an operator; its one-time password opens only the change, server-side too', async () => {
    await openScreen(admin, served.base, '#/operadores', 'Operadores')
    const form = admin.getByRole('form', { name: 'Novo operador' })
    await form.getByLabel('E-mail').fill(NOVA)
    await form.getByLabel('Papel').selectOption('adjuster')
    await form.getByRole('button', { name: 'Criar operador' }).click()
    oneTime = ((await admin.getByTestId('operator-password').textContent()) ?? '').trim()
    expect(oneTime).toMatch(/^[A-Za-z0-9]{20}$/)
    await admin.locator(`tr[data-operator="${NOVA}"]`).getByText('senha provisória').waitFor()

    // The first sign-in enrols a second factor, then lands on the change: no menu, nothing else.
    await nova.goto(`${served.base}/`)
    await nova.getByLabel('E-mail').fill(NOVA)
    await nova.getByLabel('Senha').fill(oneTime)
    await nova.getByLabel(/Ativar \(ou trocar\)/).check()
    await nova.getByRole('button', { name: 'Entrar' }).click()
    totpSecret = ((await nova.locator('code.secret').textContent()) ?? '').trim()
    await nova.getByLabel('Código').fill(freshTotpCode(totpSecret, nextStep()))
    await nova.getByRole('button', { name: 'Confirmar' }).click()
    await nova.getByRole('heading', { level: 1, name: 'Troque a senha provisória' }).waitFor()
    expect(await nova.getByRole('navigation', { name: 'Seções' }).count()).toBe(0)
    // The code was just given: the forced change asks none.
    expect(await nova.getByLabel('Código do aplicativo autenticador').count()).toBe(0)
    // Whatever the screen shows, the server refuses the rest to this session.
    expect(await status(nova, '/api/claims')).toBe(403)
    expect(await status(nova, '/api/session')).toBe(200)
    await nova.goto(`${served.base}/#/sinistros`)
    await nova.getByRole('heading', { level: 1, name: 'Troque a senha provisória' }).waitFor()
    for (const viewport of [PHONE, DESKTOP]) {
      await nova.setViewportSize(viewport)
      await noSidewaysScroll(nova)
      await nova.screenshot({ path: `${SHOTS}/password-forced-${viewport.width}.png`, fullPage: true })
    }
    expect(await seriousViolations(nova)).toEqual([])
  })

  it('the change is checked, and once made the console opens', async () => {
    await nova.getByLabel('Senha atual').fill(oneTime)
    await nova.getByLabel('Nova senha', { exact: true }).fill(OWN)
    await nova.getByLabel('Repita a nova senha').fill(`${OWN}!`)
    await nova.getByRole('button', { name: 'Trocar senha' }).click()
    await nova.getByRole('alert').getByText('A confirmação não é igual à nova senha.').waitFor()
    expect(await focused(nova)).toContain('A confirmação não é igual')

    await nova.getByLabel('Senha atual').fill('não é esta senha')
    await nova.getByLabel('Repita a nova senha').fill(OWN)
    await nova.getByRole('button', { name: 'Trocar senha' }).click()
    await nova.getByRole('alert').getByText('Senha atual ou código incorretos.').waitFor()
    expect(await focused(nova)).toContain('Senha atual ou código incorretos.')

    await nova.getByLabel('Senha atual').fill(oneTime)
    await nova.getByRole('button', { name: 'Trocar senha' }).click()
    await nova.getByRole('navigation', { name: 'Seções' }).waitFor()
    expect(await status(nova, '/api/claims')).toBe(200)
    const row = await ctx.db
      .selectFrom('operators')
      .select('password_one_time')
      .where('email', '=', NOVA)
      .executeTakeFirstOrThrow()
    expect(Boolean(row.password_one_time)).toBe(false)
  })

  it('an operator changes its own password later, with a code of its authenticator', async () => {
    await nova.setViewportSize(DESKTOP)
    await nova.getByRole('navigation', { name: 'Seções' }).getByRole('link', { name: 'Minha senha' }).click()
    await nova.getByRole('heading', { level: 1, name: 'Trocar senha' }).waitFor()
    await nova.getByLabel('Senha atual').fill(OWN)
    await nova.getByLabel('Nova senha', { exact: true }).fill(LATER)
    await nova.getByLabel('Repita a nova senha').fill(LATER)
    await nova.getByLabel('Código do aplicativo autenticador').fill(freshTotpCode(totpSecret, nextStep()))
    await nova.getByRole('button', { name: 'Trocar senha' }).click()
    await nova.getByText('Senha trocada. Suas outras sessões foram encerradas.').waitFor()
    expect(await focused(nova)).toContain('Senha trocada.')
    expect(await seriousViolations(nova)).toEqual([])
    for (const viewport of [PHONE, DESKTOP]) {
      await nova.setViewportSize(viewport)
      await noSidewaysScroll(nova)
      await nova.screenshot({ path: `${SHOTS}/password-own-${viewport.width}.png`, fullPage: true })
    }

    await nova.getByRole('button', { name: 'Sair' }).click()
    await nova.getByRole('heading', { name: 'Entrar' }).waitFor()
    await signIn(nova, served.base, { email: NOVA, password: LATER, totpSecret, now: nextStep() })
    await openScreen(nova, served.base, '#/painel', 'Painel')
  })

  it('an admin’s resets ask for confirmation apart; focus moves to it and to its result', async () => {
    // Read afresh: the list in the page's cache predates the enrolment.
    await admin.reload()
    await openScreen(admin, served.base, '#/operadores', 'Operadores')
    const row = admin.locator(`tr[data-operator="${NOVA}"]`)
    await row.getByText('ativada').waitFor()

    // A second factor reset, cancelled: nothing changes and focus goes back to the button.
    await row.getByRole('button', { name: /Novo segundo fator/ }).click()
    const dialog = admin.getByRole('alertdialog')
    await dialog.getByText(/Redefinir o segundo fator de nova@amparo\.test\?/).waitFor()
    expect(await focused(admin)).toBe('Redefinir segundo fator')
    expect(await seriousViolations(admin)).toEqual([])
    await admin.screenshot({ path: `${SHOTS}/operators-confirm-1280.png`, fullPage: true })
    await dialog.getByRole('button', { name: 'Cancelar' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await focused(admin)).toContain('Novo segundo fator')

    // A new password: confirmed, the one-time password shown once and focused; the second factor stays.
    await row.getByRole('button', { name: /Nova senha/ }).click()
    await dialog.getByText(/O segundo fator continua o mesmo\./).waitFor()
    expect(await focused(admin)).toBe('Gerar senha provisória')
    await dialog.getByRole('button', { name: 'Gerar senha provisória' }).click()
    const password = ((await admin.getByTestId('operator-password').textContent()) ?? '').trim()
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/)
    expect(await focused(admin)).toContain(password)
    await row.getByText('senha provisória').waitFor()
    await row.getByText('ativada').waitFor()
    // Its sessions ended.
    expect(await status(nova, '/api/session')).toBe(401)

    // The second factor, confirmed: the result is said and focused.
    await row.getByRole('button', { name: /Novo segundo fator/ }).click()
    await dialog.getByRole('button', { name: 'Redefinir segundo fator' }).click()
    await admin.getByText(`Segundo fator de ${NOVA} redefinido`).waitFor()
    expect(await focused(admin)).toContain('Segundo fator de nova@amparo.test redefinido')
    await row.getByRole('button', { name: /Novo segundo fator/ }).waitFor({ state: 'detached' })
    const after = await ctx.db
      .selectFrom('operators')
      .select(['totp_enrolled_at', 'password_one_time'])
      .where('email', '=', NOVA)
      .executeTakeFirstOrThrow()
    expect(after.totp_enrolled_at).toBeNull()
    expect(Boolean(after.password_one_time)).toBe(true)
    for (const viewport of [PHONE, DESKTOP]) {
      await admin.setViewportSize(viewport)
      // Every action in view on a phone: the list shows each operator as a card.
      await noSidewaysScroll(admin)
      await admin.screenshot({ path: `${SHOTS}/operators-${viewport.width}.png`, fullPage: true })
    }
    expect(await seriousViolations(admin)).toEqual([])
  })
})

reportMissing(CHROMIUM_TOOL)
