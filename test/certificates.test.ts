import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Subscription } from './helpers/api-types.js'
import { ADDRESS, MARIA, uniqueImei } from './helpers/bodies.js'
import { PDFTOTEXT, reportMissing } from './helpers/machine-tools.js'
import { useTestApp } from './helpers/test-app.js'
import {
  answer,
  bearer,
  contractSubscription,
  type Seller,
  seedCatalog,
  seller,
  send,
} from './helpers/world.js'

// The insured's certificate (README, Certificates): the PDF's text as pdftotext extracts it, the
// public verification, and the refusal of contracts not in force.

const NOW = new Date('2026-11-21T15:00:00.000Z')
let now = NOW
const ctx = useTestApp({ clock: { now: () => now } })
const work = mkdtempSync(join(tmpdir(), 'amparo-certificates-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let s: Seller
let other: Seller
let galaxy: number

/** The text of a PDF, as poppler's pdftotext reads it. */
function pdfText(bytes: Buffer): string {
  const file = join(work, `${Math.random().toString(36).slice(2)}.pdf`)
  writeFileSync(file, bytes)
  return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' })
}

function refused(response: { statusCode: number; json(): { code: string } }, status: number, code: string) {
  expect(response.statusCode).toBe(status)
  expect(response.json().code).toBe(code)
}

const verificationCodeIn = (text: string) => /Código de verificação: ([A-Z2-7]{32})/.exec(text)?.[1] ?? ''

async function paidSubscription(imei: string): Promise<Subscription> {
  const contracted = await contractSubscription(ctx, s, galaxy, { serial_number: imei, store_id: null })
  const [first] = await answer(ctx, s, 'GET', `/subscriptions/${contracted.id}/installments`)
  await answer(ctx, s, 'POST', `/subscriptions/${contracted.id}/installments/${first.id}/notify-payment`)
  return answer(ctx, s, 'GET', `/subscriptions/${contracted.id}`)
}

async function paidAnnualPlan(imei: string): Promise<{ id: number; policy_number: string }> {
  const body = { model_id: galaxy, customer_id: s.customerId, imei, payment: { method: 'pix' } }
  const plan = await answer(ctx, s, 'POST', '/annual-plans', body, 201)
  return answer(ctx, s, 'POST', `/annual-plans/${plan.id}/notify-payment`)
}

beforeAll(async () => {
  galaxy = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  s = await seller(ctx, { partner: { name: 'Loja Conecta Celulares' } })
  other = await seller(ctx)
})

reportMissing(PDFTOTEXT)

describe('GET /subscriptions/{id}/certificate', () => {
  it.skipIf(!PDFTOTEXT.present)(
    'prints every field of a subscription in force, the CPF masked, in a PDF',
    async () => {
      const imei = uniqueImei()
      const subscription = await paidSubscription(imei)
      expect(subscription.status).toBe('pago')
      expect(subscription.policy_number).toMatch(/^AMP-2026-\d{6}$/)

      const response = await send(ctx, s, 'GET', `/subscriptions/${subscription.id}/certificate`)
      expect(response.statusCode, response.body).toBe(200)
      expect(response.headers['content-type']).toBe('application/pdf')
      expect(response.rawPayload.subarray(0, 5).toString()).toBe('%PDF-')
      const text = pdfText(response.rawPayload)
      for (const expected of [
        'Certificado de Seguro',
        `Apólice nº ${subscription.policy_number}`,
        `Assinatura nº ${subscription.id}`,
        'Maria da Silva',
        'CPF ***.982.247-**',
        'Samsung Galaxy S25',
        `IMEI: ${imei}`,
        // The plan's perils by their one label (its coverages name all four).
        'Roubo',
        'Furto qualificado',
        'Quebra acidental',
        'Danos por líquido',
        `LMI R$ ${subscription.lmi.toLocaleString('de-DE', { minimumFractionDigits: 2 })}`,
        'Franquia:',
        `${subscription.installments_count} parcelas mensais`,
        // Its first installment was notified by the partner (`paid_with` `external`).
        'Forma de pagamento: Pago ao parceiro',
        'Prêmio:',
        'Parceiro: Loja Conecta Celulares',
        'Loja: Venda direta do parceiro',
        'COMO ACIONAR O SEGURO',
        'Comunique o sinistro à Loja Conecta Celulares em até 30 dias',
        'Emitido em: 21/11/2026',
        'de 21/11/2026 até 21/11/2027',
      ]) {
        expect(text, expected).toContain(expected)
      }
      expect(text).not.toContain('529.982.247-25')
      expect(text).not.toContain('52998224725')
      const code = verificationCodeIn(text)
      expect(code).toMatch(/^[A-Z2-7]{32}$/)
      expect(text).toContain(`/certificates/${code}`)
    },
  )

  it.skipIf(!PDFTOTEXT.present)(
    'prints PIX as the way a subscription whose first installment was paid by PIX was paid',
    async () => {
      const own = await seller(ctx, { partner: 'own', customer: { ...MARIA, address: ADDRESS } })
      const contracted = await contractSubscription(ctx, own, galaxy, { serial_number: uniqueImei() })
      const [first] = await answer(ctx, own, 'GET', `/subscriptions/${contracted.id}/installments`)
      const code = await answer(
        ctx,
        own,
        'POST',
        `/subscriptions/${contracted.id}/installments/${first.id}/pix`,
        undefined,
        201,
      )
      await answer(ctx, own, 'POST', `/sandbox/payments/${code.id}/pay`)

      const response = await send(ctx, own, 'GET', `/subscriptions/${contracted.id}/certificate`)
      expect(response.statusCode, response.body).toBe(200)
      const text = pdfText(response.rawPayload)
      expect(text).toContain('Forma de pagamento: PIX')
      expect(text).not.toContain('Pago ao parceiro')
    },
  )

  it('refuses a subscription not in force (pending, canceled, expired) with 422 invalid_state', async () => {
    const pending = await contractSubscription(ctx, s, galaxy, { serial_number: uniqueImei() })
    expect(pending.policy_number).toBeNull()
    refused(await send(ctx, s, 'GET', `/subscriptions/${pending.id}/certificate`), 422, 'invalid_state')

    const canceled = await paidSubscription(uniqueImei())
    await answer(ctx, s, 'POST', `/subscriptions/${canceled.id}/cancellation`, {})
    refused(await send(ctx, s, 'GET', `/subscriptions/${canceled.id}/certificate`), 422, 'invalid_state')

    const expiring = await paidSubscription(uniqueImei())
    now = new Date('2027-12-01T15:00:00.000Z')
    try {
      const url = `/subscriptions/${expiring.id}/certificate`
      const late = await ctx.app.inject({ method: 'GET', url, headers: bearer(await s.login()) })
      refused(late, 422, 'invalid_state')
    } finally {
      now = NOW
    }
  })

  it('is 404 for another partner’s subscription', async () => {
    const subscription = await paidSubscription(uniqueImei())
    refused(await send(ctx, other, 'GET', `/subscriptions/${subscription.id}/certificate`), 404, 'not_found')
  })
})

describe('GET /annual-plans/{id}/certificate', () => {
  it.skipIf(!PDFTOTEXT.present)(
    'prints the annual plan, its policy number from the sequence subscriptions share',
    async () => {
      const imei = uniqueImei()
      const subscription = await paidSubscription(uniqueImei())
      const plan = await paidAnnualPlan(imei)
      const serial = (number: string | null) => Number(number?.slice(-6))
      expect(plan.policy_number).toMatch(/^AMP-2026-\d{6}$/)
      expect(serial(plan.policy_number)).toBeGreaterThan(serial(subscription.policy_number))
      expect(plan.policy_number).not.toBe(subscription.policy_number)

      const response = await send(ctx, s, 'GET', `/annual-plans/${plan.id}/certificate`)
      expect(response.statusCode, response.body).toBe(200)
      expect(response.headers['content-type']).toBe('application/pdf')
      const text = pdfText(response.rawPayload)
      for (const expected of [
        `Apólice nº ${plan.policy_number}`,
        `Plano anual nº ${plan.id}`,
        'CPF ***.982.247-**',
        `IMEI: ${imei}`,
        '12 meses, de 22/11/2026',
        'Pagamento: à vista',
        'Forma de pagamento: Pago ao parceiro',
        'Parceiro: Loja Conecta Celulares',
      ]) {
        expect(text, expected).toContain(expected)
      }
      expect(text).not.toContain('529.982.247-25')
    },
  )

  it('refuses a plan awaiting payment with 422 invalid_state', async () => {
    const body = {
      model_id: galaxy,
      customer_id: s.customerId,
      imei: uniqueImei(),
      payment: { method: 'pix' },
    }
    const plan = await answer(ctx, s, 'POST', '/annual-plans', body, 201)
    refused(await send(ctx, s, 'GET', `/annual-plans/${plan.id}/certificate`), 422, 'invalid_state')
  })
})

describe('GET /certificates/{code}', () => {
  it.skipIf(!PDFTOTEXT.present)(
    'answers the number, status and term without a token, and nothing personal',
    async () => {
      const imei = uniqueImei()
      const subscription = await paidSubscription(imei)
      const pdf = await send(ctx, s, 'GET', `/subscriptions/${subscription.id}/certificate`)
      const code = verificationCodeIn(pdfText(pdf.rawPayload))

      const response = await ctx.app.inject({ method: 'GET', url: `/certificates/${code.toLowerCase()}` })
      expect(response.statusCode, response.body).toBe(200)
      const body = response.json()
      expect(body).toEqual({
        valid: true,
        number: subscription.policy_number,
        status: 'pago',
        starts_at: '2026-11-21 12:00:00',
        ends_at: '2027-11-21 00:00:00',
      })
      for (const personal of ['Maria', '982', 'Galaxy', imei, 'maria@example.com']) {
        expect(response.body).not.toContain(personal)
      }

      await answer(ctx, s, 'POST', `/subscriptions/${subscription.id}/cancellation`, {})
      const canceled = (await ctx.app.inject({ method: 'GET', url: `/certificates/${code}` })).json()
      expect(canceled).toMatchObject({ valid: false, number: subscription.policy_number, status: 'canceled' })
    },
  )

  it.skipIf(!PDFTOTEXT.present)('answers an annual plan’s verification with its cover', async () => {
    const plan = await paidAnnualPlan(uniqueImei())
    const pdf = await send(ctx, s, 'GET', `/annual-plans/${plan.id}/certificate`)
    const code = verificationCodeIn(pdfText(pdf.rawPayload))
    const body = (await ctx.app.inject({ method: 'GET', url: `/certificates/${code}` })).json()
    expect(body).toEqual({
      valid: true,
      number: plan.policy_number,
      status: 'paid',
      starts_at: '2026-11-22 00:00:00',
      ends_at: '2027-11-22 00:00:00',
    })
  })

  it('is 404 for a code that names no certificate', async () => {
    for (const code of ['A'.repeat(32), 'not-a-code']) {
      refused(await ctx.app.inject({ method: 'GET', url: `/certificates/${code}` }), 404, 'not_found')
    }
  })
})
