import type { ParsedMail } from 'mailparser'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildPortalApp, type PortalApp } from '../../src/portal/app.js'
import { deliverMessagesOnce } from '../../src/worker/messages.job.js'
import { deliverWebhooksOnce } from '../../src/worker/webhooks.job.js'
import {
  CHROMIUM_TOOL,
  hasChromium,
  launchBrowser,
  newPage,
  PHONE,
  seriousViolations,
} from '../console/browser.js'
import { portalRoot } from '../console/built.js'
import { jpeg, pdf } from '../helpers/claim-documents.js'
import {
  type ClaimBody,
  ctx,
  daysAfter,
  local,
  now,
  ok,
  paidSubscription,
  type Seller,
  seller,
  useClaimsWorld,
} from '../helpers/claims-world.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from '../helpers/console.js'
import { reportMissing } from '../helpers/machine-tools.js'
import { type Receiver, startReceiver } from '../helpers/receiver.js'
import { smtpSink } from '../helpers/smtp-sink.js'

// The insured's journey from start to end (README, Portal do segurado), in Debian's Chromium at
// 390×844: a stolen phone's claim opened from the portal, the partner's webhook, the adjuster's
// request reaching the insured by e-mail (a real SMTP server here, the worker's delivery) and on
// the claim's page, answered from it, approved and settled, each message of it sent once.

useClaimsWorld()
vi.setConfig({ testTimeout: 300_000, hookTimeout: 240_000 })

let portal: PortalApp
let desk: ConsoleTestContext
let adjuster: ConsoleHeaders
let sink: Awaited<ReturnType<typeof smtpSink>>
let receiver: Receiver
let browser: Browser
let base = ''
let s: Seller
let email = ''
const clock = { now: () => now }

/** The worker's message round, to the SMTP server of this process. */
const deliverMail = () =>
  deliverMessagesOnce({
    db: ctx.db,
    clock,
    timeZone: ctx.config.timeZone,
    mail: { ...ctx.config.mail, smtpUrl: sink.url },
  })
const mailTo = (mail: ParsedMail) => (mail.to && 'text' in mail.to ? mail.to.text : '')
/** The insured's inbox, oldest first. */
const inbox = () => sink.received.filter((mail) => mailTo(mail) === email)

/** Delivers until the insured's inbox holds a message whose subject matches: that message. */
async function awaitMail(subject: RegExp): Promise<ParsedMail> {
  let found: ParsedMail | undefined
  await expect
    .poll(
      async () => {
        await deliverMail()
        found = inbox().find((mail) => subject.test(mail.subject ?? ''))
        return found !== undefined
      },
      { timeout: 60_000, interval: 250 },
    )
    .toBe(true)
  return found as ParsedMail
}

const onDesk = (method: 'GET' | 'POST', url: string, payload?: object) =>
  desk.console.inject({ method, url, headers: adjuster, ...(payload && { payload }) })

async function checkAxe(page: Page, screen: string) {
  expect(await seriousViolations(page), screen).toEqual([])
  await page.screenshot({ path: `screenshots/portal-journey-${screen}.png`, fullPage: true })
}

const claimHeading = (page: Page) => page.getByRole('heading', { level: 1, name: /^Sinistro SIN-/ })

/** Picks files of one kind through the claim page's file picker, and waits for each to be sent. */
async function send(page: Page, kind: string, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const sent = page.getByRole('region', { name: 'Documentos enviados' })
  const before = await sent.getByRole('listitem').count()
  await page.getByLabel('Tipo de documento').selectOption(kind)
  await page.getByLabel('Escolher arquivos').setInputFiles(files)
  await expect.poll(() => sent.getByRole('listitem').count()).toBe(before + files.length)
}

describe.skipIf(!hasChromium)('the insured’s journey, from a stolen phone to the settlement', () => {
  beforeAll(async () => {
    sink = await smtpSink()
    receiver = await startReceiver()
    s = await seller()
    await ok(s, 'POST', '/webhook-endpoints', { url: receiver.url('/hooks') }, 201)
    await paidSubscription(s, { paidAt: daysAfter(-20) })
    email = String(
      (
        await ctx.db
          .selectFrom('customers')
          .select('email')
          .where('id', '=', s.customer.id)
          .executeTakeFirstOrThrow()
      ).email,
    )
    portal = await buildPortalApp({
      config: ctx.config,
      db: ctx.db,
      clock,
      logger: false,
      staticRoot: await portalRoot(),
    })
    await portal.listen({ host: '127.0.0.1', port: 0 })
    const address = portal.server.address()
    if (!address || typeof address === 'string') throw new Error('the portal is not listening')
    base = `http://127.0.0.1:${address.port}`
    desk = await createConsoleApp({ over: () => ctx, clock })
    await desk.console.ready()
    adjuster = await desk.loginAs('adjuster')
    browser = await launchBrowser()
  })

  afterAll(async () => {
    await browser?.close()
    await portal?.close()
    await desk?.close()
    await receiver?.close()
    await sink?.close()
  })

  it('signs in by code, opens a theft claim, answers the adjuster’s request, and sees it settled', async () => {
    const page = await newPage(browser, PHONE)

    // Signing in from the phone, by the code the e-mail carries.
    await page.goto(`${base}/`)
    await page.getByLabel('CPF ou CNPJ').waitFor()
    await checkAxe(page, 'entrar')
    await page.getByLabel('CPF ou CNPJ').fill(s.customer.document)
    await page.getByRole('button', { name: 'Receber código por e-mail' }).click()
    await page.getByLabel('Código').waitFor()
    await checkAxe(page, 'codigo')
    const signInMail = await awaitMail(/^Seu código de acesso: \d{6}$/)
    const code = /(\d{6})$/.exec(signInMail.subject ?? '')?.[1] ?? ''
    expect(signInMail.text).toContain(code)
    await page.getByLabel('Código').fill(code)
    await page.getByRole('button', { name: 'Entrar' }).click()
    await page.getByRole('heading', { level: 1, name: 'Minhas proteções' }).waitFor()
    await page.getByText('Carregando…').waitFor({ state: 'detached' })
    const card = page.getByRole('article')
    await expect.poll(() => card.count()).toBe(1)
    await checkAxe(page, 'protecoes')

    // The theft claim, opened from the contract's card.
    await card.getByRole('link', { name: 'Abrir sinistro' }).click()
    await page.getByRole('heading', { level: 1, name: 'Abrir sinistro' }).waitFor()
    await page.getByLabel('O que aconteceu?').selectOption('robbery')
    await page.getByLabel('Data', { exact: true }).fill(local(daysAfter(-1)).slice(0, 10))
    await page.getByLabel('Hora aproximada').fill('21:30')
    await page.getByLabel(/Conte como foi/).fill('Levaram meu celular na saída do metrô, à noite.')
    await page.getByLabel('Número do boletim de ocorrência').fill('BO-2026-5150')
    await checkAxe(page, 'abrir-sinistro')
    await page.getByRole('button', { name: 'Abrir sinistro' }).click()
    await claimHeading(page).waitFor()
    const number = /SIN-[\w-]+/.exec((await claimHeading(page).textContent()) ?? '')?.[0] ?? ''
    expect(number).not.toBe('')

    // The police report (a PDF), the operator's IMEI block and a photo of the invoice, from the picker.
    await send(page, 'police_report', [
      { name: 'boletim.pdf', mimeType: 'application/pdf', buffer: pdf('Boletim de Ocorrência 5150') },
    ])
    await send(page, 'imei_block', [
      {
        name: 'bloqueio-imei.pdf',
        mimeType: 'application/pdf',
        buffer: pdf('Protocolo de bloqueio do IMEI'),
      },
    ])
    await send(page, 'invoice', [
      { name: 'foto-da-nota.jpg', mimeType: 'image/jpeg', buffer: jpeg('nota fiscal borrada') },
    ])
    await page.getByRole('region', { name: 'Documentos que faltam' }).waitFor({ state: 'detached' })
    await expect.poll(async () => (await page.locator('.badge').textContent()) ?? '').toBe('Em análise')
    await checkAxe(page, 'sinistro-enviado')

    // The partner's webhook: the claim the insured opened.
    const claims = await ok<{ data: ClaimBody[] }>(s, 'GET', '/claims')
    const claim = claims.data.find((c) => c.number === number) as ClaimBody
    expect(claim).toMatchObject({ status: 'under_review', opened_by: 'insured' })
    await deliverWebhooksOnce({
      db: ctx.db,
      clock,
      timeZone: ctx.config.timeZone,
      env: 'test',
      timeoutMs: 5000,
    })
    const opened = receiver
      .at('/hooks')
      .map(
        (hook) =>
          JSON.parse(hook.body) as { type: string; data: { object: { id: number; opened_by: string } } },
      )
      .filter((hook) => hook.type === 'claim.opened')
    expect(opened).toHaveLength(1)
    expect(opened[0]?.data.object).toMatchObject({ id: claim.id, opened_by: 'insured' })

    // The adjuster asks for a readable invoice, through the console's API.
    const message = 'A foto da nota fiscal está ilegível; envie o PDF da nota.'
    const asked = await onDesk('POST', `/api/claims/${claim.id}/request-documents`, {
      kinds: ['invoice'],
      message,
    })
    expect(asked.statusCode, asked.body).toBe(200)

    // It reaches the insured by e-mail…
    const requestMail = await awaitMail(new RegExp(`^Sinistro ${number}: precisamos de documentos$`))
    expect(requestMail.text).toContain(`Mensagem do analista: "${message}"`)
    expect(requestMail.text).toContain('Nota fiscal')
    expect(requestMail.html).toContain(message)
    // … and on the claim's page.
    await page.reload()
    await claimHeading(page).waitFor()
    const request = page.getByRole('region', { name: 'Pedido do regulador' })
    await expect.poll(async () => (await request.textContent()) ?? '').toContain(message)
    const missing = page.getByRole('region', { name: 'Documentos que faltam' })
    await expect.poll(async () => (await missing.textContent()) ?? '').toContain('Nota fiscal')
    await checkAxe(page, 'sinistro-pedido')

    // The insured answers from the page: the kind asked for is the one chosen.
    expect(await page.getByLabel('Tipo de documento').inputValue()).toBe('invoice')
    await send(page, 'invoice', [
      { name: 'nota-fiscal.pdf', mimeType: 'application/pdf', buffer: pdf('Nota fiscal 000123') },
    ])
    await missing.waitFor({ state: 'detached' })
    await expect.poll(async () => (await page.locator('.badge').textContent()) ?? '').toBe('Em análise')
    expect(await request.textContent()).toContain('atendido')

    // The adjuster approves the indemnity and settles it.
    const lmiCents = Math.round(claim.lmi * 100)
    const approved = await onDesk('POST', `/api/claims/${claim.id}/approve`, {
      settlement_method: 'indemnity',
      approved_amount_cents: lmiCents,
    })
    expect(approved.statusCode, approved.body).toBe(200)
    const settled = await onDesk('POST', `/api/claims/${claim.id}/settle`, { reference: 'PIX-E2E-2026-0042' })
    expect(settled.statusCode, settled.body).toBe(200)

    // The insured sees it settled.
    await page.reload()
    await claimHeading(page).waitFor()
    await expect.poll(async () => (await page.locator('.badge').textContent()) ?? '').toBe('Concluído')
    const decision = page.getByRole('region', { name: 'Decisão' })
    await expect.poll(async () => (await decision.textContent()) ?? '').toContain('Concluído em')
    expect(await decision.textContent()).toContain('Aprovado (Indenização)')
    await checkAxe(page, 'sinistro-concluido')

    // Each message of the journey, once.
    await awaitMail(new RegExp(`^Sinistro ${number} concluído$`))
    await deliverMail()
    const subjects = inbox().map((mail) => mail.subject ?? '')
    for (const subject of [
      `Sinistro ${number} aberto`,
      `Sinistro ${number}: precisamos de documentos`,
      `Sinistro ${number} aprovado`,
      `Sinistro ${number} concluído`,
    ])
      expect(
        subjects.filter((seen) => seen === subject),
        subject,
      ).toHaveLength(1)
    expect(new Set(inbox().map((mail) => mail.messageId)).size).toBe(inbox().length)
    await page.context().close()
  })
})

reportMissing(CHROMIUM_TOOL)
