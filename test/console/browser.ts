import { AxeBuilder } from '@axe-core/playwright'
import * as OTPAuth from 'otpauth'
import { type Browser, chromium, type Page } from 'playwright-core'
import { chromiumTool } from '../helpers/machine-tools.js'

/** Debian's Chromium: the console's browser tests and screenshots drive it, nothing is downloaded. */
export const CHROMIUM = process.env.AMPARO_CHROMIUM ?? '/usr/bin/chromium'
export const CHROMIUM_TOOL = chromiumTool(CHROMIUM)
export const hasChromium = CHROMIUM_TOOL.present

/** The flags that work on a closed-network machine (no Google lookups, no background traffic). */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

/** A headless Chromium with a fresh profile (Playwright makes a new empty user-data-dir). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 90_000 })
}

export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

/** Generous waits: the tests run on a busy 2-core machine. */
export const WAIT_MS = 30_000

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport, locale: 'pt-BR', timezoneId: 'UTC' })
  context.setDefaultTimeout(WAIT_MS)
  context.setDefaultNavigationTimeout(WAIT_MS * 2)
  return context.newPage()
}

/** The RFC 6238 code of a base32 secret, for a moment (default now). */
export function totpCode(secret: string, at = Date.now()): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: at,
  })
}

const usedSteps = new Map<string, Set<number>>()

/**
 * A code the server has not seen yet: each 30 s step's code is accepted once and one step of drift
 * is allowed either way, so a sign-in soon after another answers with the next (or the previous)
 * step's code. `now` is the console's clock (ms).
 */
export function freshTotpCode(secret: string, now = Date.now()): string {
  const used = usedSteps.get(secret) ?? new Set<number>()
  usedSteps.set(secret, used)
  const step = Math.floor(now / 30_000)
  const fresh = [step, step + 1, step - 1].find((s) => !used.has(s))
  if (fresh === undefined) throw new Error('three sign-ins within one TOTP step: no fresh code left')
  used.add(fresh)
  return totpCode(secret, fresh * 30_000 + 1)
}

/**
 * Signs in through the screen: e-mail and password (ticking "enrol" when asked), then the TOTP
 * code (enrolling from the QR screen's key when asked). Returns the TOTP secret (the enrolled one,
 * or the one given). `now`: the console's clock, for the codes.
 */
export async function signIn(
  page: Page,
  base: string,
  who: { email: string; password: string; totpSecret?: string; enroll?: boolean; now?: number },
): Promise<string> {
  await page.goto(`${base}/`)
  await page.getByLabel('E-mail').fill(who.email)
  await page.getByLabel('Senha').fill(who.password)
  if (who.enroll) await page.getByLabel(/Ativar \(ou trocar\)/).check()
  await page.getByRole('button', { name: 'Entrar' }).click()
  const enrol = page.getByRole('heading', { name: 'Ativar a verificação em duas etapas' })
  const code = page.getByRole('heading', { name: 'Código de verificação' })
  const done = page.getByRole('navigation', { name: 'Seções' })
  await enrol.or(code).or(done).first().waitFor()
  if (await done.isVisible()) return who.totpSecret ?? ''
  let secret = who.totpSecret
  if (await enrol.isVisible()) secret = (await page.locator('code.secret').textContent())?.trim()
  if (!secret) throw new Error('no TOTP secret to answer the code screen with')
  await page.getByLabel('Código').fill(freshTotpCode(secret, who.now))
  await page.getByRole('button', { name: 'Confirmar' }).click()
  await done.waitFor()
  return secret
}

export interface AxeFinding {
  id: string
  impact: string | null | undefined
  help: string
  targets: string[]
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  const result = await new AxeBuilder({ page }).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }))
}

/** The console's screens, by hash route, each with a heading that says it has loaded. */
export const SCREENS: { name: string; hash: string; heading: RegExp | string }[] = [
  { name: 'painel', hash: '#/painel', heading: 'Painel' },
  { name: 'sinistros', hash: '#/sinistros', heading: 'Sinistros' },
  { name: 'busca', hash: '#/busca', heading: 'Busca' },
  { name: 'parceiros', hash: '#/parceiros', heading: 'Parceiros' },
  { name: 'reembolsos', hash: '#/reembolsos', heading: 'Reembolsos' },
  { name: 'auditoria', hash: '#/auditoria', heading: 'Auditoria' },
  { name: 'operadores', hash: '#/operadores', heading: 'Operadores' },
  { name: 'disputas', hash: '#/disputas', heading: 'Disputas' },
  { name: 'minha senha', hash: '#/senha', heading: 'Trocar senha' },
]

/** Opens a screen and waits until its heading is there and nothing is loading. */
export async function openScreen(page: Page, base: string, hash: string, heading: RegExp | string) {
  await page.goto(`${base}/${hash}`)
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
  await page.getByText('Carregando…').waitFor({ state: 'detached' })
}
