// `npm run console:screenshots [-- --out DIR]`: a PNG of every console screen, at 1280×800 and
// 390×844, on the demo data (a fresh SQLite database, `amparo demo`, one demo claim with a photo
// and an invoice), written to screenshots/ (gitignored). Or against a running console:
// `-- --url http://127.0.0.1:3001 --email E --password P --totp-secret S`.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Page } from 'playwright-core'
import {
  CHROMIUM_TOOL,
  DESKTOP,
  hasChromium,
  launchBrowser,
  newPage,
  openScreen,
  PHONE,
  SCREENS,
  signIn,
} from '../test/console/browser.js'

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'screenshots' },
    url: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    'totp-secret': { type: 'string' },
    claim: { type: 'string' },
    partner: { type: 'string' },
    search: { type: 'string' },
  },
})

interface Target {
  base: string
  email: string
  password: string
  totpSecret?: string
  claimId?: string
  partnerId?: string
  search?: string
  close: () => Promise<void>
}

async function target(): Promise<Target> {
  if (values.url) {
    if (!values.email || !values.password) throw new Error('--url needs --email and --password')
    return {
      base: values.url.replace(/\/$/, ''),
      email: values.email,
      password: values.password,
      totpSecret: values['totp-secret'],
      claimId: values.claim,
      partnerId: values.partner,
      search: values.search,
      close: async () => {},
    }
  }
  const { startDemoConsole } = await import('../test/console/demo-console.js')
  return startDemoConsole()
}

async function shoot(page: Page, dir: string, name: string) {
  await page.evaluate('document.fonts.ready')
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
  console.log(`  ${name}.png`)
}

/**
 * The claim's documents as a reader sees them: images decoded and each PDF frame's viewer drawn
 * (the frame's load fires before Chromium's viewer paints, hence the pause).
 */
async function documentsShown(page: Page) {
  const frames = page.locator('figure.doc iframe')
  for (const frame of await frames.all()) {
    await frame.scrollIntoViewIfNeeded()
    await frame.contentFrame().locator('embed, body').first().waitFor({ timeout: 15_000 })
  }
  for (const image of await page.locator('figure.doc img').all()) {
    await image.scrollIntoViewIfNeeded()
    await image.evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode())
  }
  if ((await frames.count()) > 0) await page.waitForTimeout(1500)
  await page.evaluate('window.scrollTo(0, 0)')
}

async function main() {
  if (!hasChromium) {
    console.error(CHROMIUM_TOOL.missing)
    process.exit(1)
  }
  const t = await target()
  const browser = await launchBrowser()
  try {
    for (const [size, viewport] of [
      ['1280x800', DESKTOP],
      ['390x844', PHONE],
    ] as const) {
      const dir = join(values.out ?? 'screenshots', size)
      mkdirSync(dir, { recursive: true })
      console.log(`${dir}/`)
      const page = await newPage(browser, viewport)
      await page.goto(`${t.base}/`)
      await page.getByRole('heading', { name: 'Entrar' }).waitFor()
      await shoot(page, dir, '00-entrar')
      t.totpSecret = await signIn(page, t.base, t)
      for (const [i, s] of SCREENS.entries()) {
        await openScreen(page, t.base, s.hash, s.heading)
        if (s.name === 'painel') await page.locator('canvas').first().waitFor()
        await shoot(page, dir, `${String(i + 1).padStart(2, '0')}-${s.name}`)
      }
      const claimId =
        t.claimId ??
        (await page.goto(`${t.base}/#/sinistros`).then(async () => {
          const link = page.getByTestId('claims-queue').locator('tbody a').first()
          return (await link.count()) > 0 ? (await link.getAttribute('href'))?.split('/').pop() : undefined
        }))
      if (claimId) {
        await openScreen(page, t.base, `#/sinistros/${claimId}`, /^Sinistro /)
        await documentsShown(page)
        await shoot(page, dir, '20-sinistro')
      }
      const partnerId = t.partnerId ?? '1'
      await page.goto(`${t.base}/#/parceiros/${partnerId}`)
      await page.getByRole('heading', { name: 'Credenciais' }).waitFor()
      await shoot(page, dir, '30-parceiro')
      if (t.search) {
        await openScreen(page, t.base, `#/busca?q=${encodeURIComponent(t.search)}`, 'Busca')
        await page.getByTestId('customer').first().waitFor()
        await shoot(page, dir, '40-busca-resultado')
      }
      await page.context().close()
    }
  } finally {
    await browser.close()
    await t.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
