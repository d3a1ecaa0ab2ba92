import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { documentForm, png } from '../helpers/claim-documents.js'
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
import {
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

// A claim's PDF seen from the console in Debian's Chromium (README, Operator console: Sinistros):
// drawn by pdf.js on canvas, its JavaScript never run, pages turned, downloadable; never handed to
// the browser's own viewer, and its bytes never a page of their own.

useClaimsWorld()
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 })

/** A PDF object's body; a stream's length counted here. */
const stream = (content: string) =>
  `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`

/**
 * A two-page PDF that tries to run script as it opens, three ways (the document's OpenAction, its
 * JavaScript name tree, and page 1's open action), each `app.alert`: a viewer that runs it shows a
 * dialog. Page 1 says "Boletim 2026/123" over a blue box; page 2 "Segunda página".
 */
function scriptedPdf(): Buffer {
  const script = "<< /Type /Action /S /JavaScript /JS (app.alert\\('script do PDF'\\);) >>"
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 7 0 R /Names << /JavaScript << /Names [(abrir) 7 0 R] >> >> >>',
    '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R /AA << /O 7 0 R >> >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 8 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    stream('0 0 1 rg 20 20 160 50 re f\nBT /F1 20 Tf 0 0 0 rg 20 130 Td (Boletim 2026/123) Tj ET'),
    script,
    stream('BT /F1 20 Tf 20 130 Td (Segunda p\\341gina) Tj ET'),
  ]
  let body = '%PDF-1.7\n'
  const offsets: number[] = []
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'))
    body += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = Buffer.byteLength(body, 'latin1')
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

/** The PDF canvas's size and how many of its pixels are the box's blue. */
const CANVAS_PIXELS = `(() => {
  const canvas = document.querySelector('[data-testid="pdf-viewer"] canvas')
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
  let blue = 0
  for (let i = 0; i < data.length; i += 4) if (data[i] < 80 && data[i + 1] < 80 && data[i + 2] > 180) blue++
  return { width: canvas.width, height: canvas.height, blue }
})()`

let served: ServedConsole
let browser: Browser
let page: Page
let s: Seller
let claim: ClaimBody
const clock = { now: NOW.getTime() }
const dialogs: string[] = []
const workers: string[] = []
const policyErrors: string[] = []
const adjuster = { email: 'vera@amparo.test', password: TEST_OPERATOR_PASSWORD }

async function upload(id: number, kind: string, bytes: Buffer, name: string, type: string) {
  const form = documentForm(kind, bytes, name, type)
  const response = await at(iso(clock.now), () =>
    call(s, 'POST', `/claims/${id}/documents`, form.payload, form.headers),
  )
  expect(response.statusCode, response.body).toBe(201)
}

describe.skipIf(!hasChromium)('a claim’s PDF in the console', () => {
  beforeAll(async () => {
    s = await seller()
    served = await serveConsole(ctx, { now: () => new Date(clock.now) })
    await loginAs(ctx.db, 'adjuster', { email: adjuster.email })
    claim = await ok<ClaimBody>(
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
    await upload(claim.id, 'photo', png(0x40), 'tela.png', 'image/png')
    await upload(claim.id, 'invoice', scriptedPdf(), 'nota-fiscal.pdf', 'application/pdf')
    browser = await launchBrowser()
    page = await newPage(browser)
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    page.on('worker', (worker) => workers.push(worker.url()))
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) policyErrors.push(message.text())
    })
    await signIn(page, served.base, { ...adjuster, enroll: true, now: clock.now })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('draws the PDF with pdf.js, its text under it, and runs none of its script', async () => {
    await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
    const viewer = page.getByTestId('pdf-viewer')
    await viewer.and(page.locator('[data-status="ready"]')).waitFor()
    await expect
      .poll(() => page.getByTestId('pdf-text').textContent(), { timeout: 30_000 })
      .toContain('Boletim 2026/123')
    const pixels = (await page.evaluate(CANVAS_PIXELS)) as { width: number; height: number; blue: number }
    expect(pixels.width).toBeGreaterThan(100)
    expect(pixels.blue).toBeGreaterThan(100)
    await expect(page.getByRole('img', { name: 'Nota fiscal, página 1 de 2' }).count()).resolves.toBe(1)
    // The image beside it is shown as before.
    await page.getByRole('img', { name: 'Enviado pelo parceiro: Foto do aparelho' }).waitFor()
    // Drawn in a worker of the console's own (not a stand-in on the page), under the console's CSP.
    expect(workers.some((url) => url.startsWith(`${served.base}/assets/pdf.worker`))).toBe(true)
    expect(policyErrors).toEqual([])
    // No frame, object or embed: the browser's own PDF viewer is never asked.
    expect(await page.locator('iframe, object, embed').count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    // Chromium's own viewer, given this file in a frame, shows three alerts at once; here, none.
    await page.getByText('Página 1 de 2').waitFor()
    expect(dialogs).toEqual([])
  })

  it('turns to page 2 and back', async () => {
    await page.getByRole('button', { name: 'Próxima página' }).click()
    await page.getByText('Página 2 de 2').waitFor()
    await expect
      .poll(() => page.getByTestId('pdf-text').textContent(), { timeout: 30_000 })
      .toContain('Segunda página')
    expect(await page.getByRole('button', { name: 'Próxima página' }).isDisabled()).toBe(true)
    await page.getByRole('button', { name: 'Página anterior' }).click()
    await expect
      .poll(() => page.getByTestId('pdf-text').textContent(), { timeout: 30_000 })
      .toContain('Boletim 2026/123')
    expect(dialogs).toEqual([])
  })

  it('downloads the file rather than opening it', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'baixar Nota fiscal' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/\.pdf$/)
    const bytes = await download.createReadStream().then(async (readable) => {
      const chunks: Buffer[] = []
      for await (const chunk of readable) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks)
    })
    expect(bytes.equals(scriptedPdf())).toBe(true)
    expect(dialogs).toEqual([])
  })

  it('exports the queue under its filters from Sinistros', async () => {
    await openScreen(page, served.base, `#/sinistros?partner_id=${s.partner.id}`, 'Sinistros')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Exportar CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('amparo-sinistros.csv')
    const readable = await download.createReadStream()
    const chunks: Buffer[] = []
    for await (const chunk of readable) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const [header, line, end] = text.split('\r\n')
    expect(header?.startsWith('\uFEFFSinistro;Parceiro;Apólice;')).toBe(true)
    expect(line?.split(';')[0]).toBe(claim.number)
    expect(end).toBe('')
  })

  it('fits a phone and a desktop', async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport)
      await openScreen(page, served.base, `#/sinistros/${claim.id}`, `Sinistro ${claim.number}`)
      await page.getByTestId('pdf-viewer').and(page.locator('[data-status="ready"]')).waitFor()
      await page.getByText('Página 1 de 2').waitFor()
      const sideways = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')
      expect(sideways).toBeLessThanOrEqual(0)
      if (process.env.AMPARO_SCREENSHOTS) {
        await page.getByTestId('pdf-viewer').scrollIntoViewIfNeeded()
        await page.screenshot({ path: `${process.env.AMPARO_SCREENSHOTS}/pdf-${viewport.width}.png` })
        await openScreen(page, served.base, '#/sinistros', 'Sinistros')
        await page.screenshot({ path: `${process.env.AMPARO_SCREENSHOTS}/sinistros-${viewport.width}.png` })
      }
    }
    expect(dialogs).toEqual([])
  })
})
