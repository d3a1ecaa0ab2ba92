import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { smtpTransport } from '../src/modules/messages/mail-transport.js'
import {
  claimMessages,
  dispatchEventMessages,
  sendMessage,
} from '../src/modules/messages/message-delivery.service.js'
import { consumeSignInLink } from '../src/modules/messages/sign-in-link.service.js'
import { setNotifyInsured } from '../src/modules/partners/partner.service.js'
import { formatTimestamp } from '../src/shared/time.js'
import { deliverMessagesOnce, MESSAGE_LEASE_SECONDS } from '../src/worker/messages.job.js'
import type { Body } from './helpers/api-types.js'
import { smtpSink } from './helpers/smtp-sink.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, type Seller, seller } from './helpers/world.js'

// Messages to the insured through a real SMTP server in this process: written from the events by
// the worker, received and parsed (the certificate attachment too), retried when refused, once per
// event and customer across a worker restart, none for a partner switched off.

const sink = await smtpSink()
let now = new Date('2026-12-07T12:00:00Z')
const clock = { now: () => now }
const ctx = useTestApp({
  clock,
  env: {
    AMPARO_LOGIN_RATE_LIMIT: '100000',
    AMPARO_SMTP_URL: sink.url,
    AMPARO_MAIL_FROM: 'Amparo <avisos@amparo.example>',
  },
})
afterAll(() => sink.close())

const deliver = () =>
  deliverMessagesOnce({ db: ctx.db, clock, timeZone: ctx.config.timeZone, mail: ctx.config.mail })
const minutes = (n: number) => {
  now = new Date(now.getTime() + n * 60_000)
}
/** What earlier tests left due is sent first, so that each test counts its own. */
async function fresh() {
  sink.state.refusing = false
  await deliver()
  sink.received.length = 0
}
const messagesOf = async (s: Seller) =>
  (
    (await answer(
      ctx,
      s,
      'GET',
      `/sandbox/messages?customer_id=${s.customerId}`,
    )) as Body<'listSandboxMessages'>
  ).data

/** A subscription contracted and its first installment notified paid: `subscription.activated`. */
async function activated(s: Seller, modelId: number) {
  const sub = await contractSubscription(ctx, s, modelId)
  const [first] = (await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)) as { id: number }[]
  await answer(ctx, s, 'POST', `/subscriptions/${sub.id}/installments/${first?.id}/notify-payment`)
  return sub
}

let galaxy: number
beforeAll(async () => {
  galaxy = await galaxyOf(ctx)
})

describe('the contract in force', () => {
  it('is e-mailed in Portuguese, text and HTML, the certificate attached and a sign-in link in it', async () => {
    await fresh()
    const s = await seller(ctx)
    const sub = await activated(s, galaxy)
    expect(await deliver()).toMatchObject({ queued: 1, sent: 1 })
    expect(sink.received).toHaveLength(1)
    const [mail] = sink.received
    const events = (await answer(ctx, s, 'GET', '/events?type=subscription.activated')) as Body<'listEvents'>
    const eventId = events.data.at(-1)?.id as string
    expect(mail?.messageId).toBe(`<${eventId}.c${s.customerId}@amparo.example>`)
    expect(mail?.from?.value).toEqual([{ name: 'Amparo', address: 'avisos@amparo.example' }])
    expect(mail?.to && 'text' in mail.to ? mail.to.text : '').toBe(sub.customer.email)
    expect(mail?.subject).toMatch(/^Sua proteção está em vigor: .+ do Galaxy S25$/)
    expect(mail?.text).toContain('está em vigor')
    expect(mail?.html).toContain('<p>O certificado vai em anexo (PDF)')
    const [pdf] = mail?.attachments ?? []
    expect(pdf?.contentType).toBe('application/pdf')
    expect(pdf?.filename).toBe('certificado-amparo.pdf')
    expect(pdf?.content.subarray(0, 5).toString()).toBe('%PDF-')
    expect(pdf?.content.toString('latin1')).toContain('%%EOF')

    const link = /http:\/\/127\.0\.0\.1:3002\/#\/entrar\/([A-Za-z0-9_-]{43})/.exec(mail?.text ?? '')?.[1]
    expect(link).toBeDefined()
    const use = () => retryingTransaction(ctx.db, (trx) => consumeSignInLink(trx, link as string, now))
    expect(await use()).toBe(s.customerId)
    expect(await use()).toBeNull()

    const [message] = await messagesOf(s)
    expect(message).toMatchObject({
      kind: 'contract_in_force',
      event_id: eventId,
      state: 'sent',
      attempts: 1,
    })
    // Nothing twice: the next round finds nothing new.
    expect(await deliver()).toMatchObject({ queued: 0, sent: 0 })
    expect(sink.received).toHaveLength(1)
  })
})

describe('a claim', () => {
  it('tells the insured it was opened and why it was denied, one message per event', async () => {
    await fresh()
    const s = await seller(ctx)
    const sub = await activated(s, galaxy)
    minutes(30)
    const claim = (await answer(
      ctx,
      s,
      'POST',
      '/claims',
      {
        subscription_id: sub.id,
        type: 'robbery',
        occurred_at: formatTimestamp(new Date(now.getTime() - 600_000), ctx.config.timeZone),
        description: 'Celular roubado na saída do metrô.',
        police_report: { number: 'BO-2026-0001', issued_on: '2026-12-07' },
      },
      201,
    )) as Body<'openClaim', 201>
    await answer(ctx, s, 'POST', `/sandbox/claims/${claim.id}/decision`, {
      outcome: 'denied',
      reason_code: 'late_notice',
      note: 'O aviso chegou depois do prazo.',
    })
    // Two workers at once: each event still makes one message.
    const [a, b] = await Promise.all([deliver(), deliver()])
    expect((a?.queued ?? 0) + (b?.queued ?? 0)).toBe(3)
    expect(sink.received.map((m) => m.subject).sort()).toEqual([
      `Sinistro ${claim.number} aberto`,
      `Sinistro ${claim.number} negado`,
      expect.stringMatching(/^Sua proteção está em vigor/),
    ])
    const denied = sink.received.find((m) => m.subject?.endsWith('negado'))
    expect(denied?.text).toContain('Motivo: Aviso fora do prazo.')
    expect(denied?.text).toContain('"O aviso chegou depois do prazo."')
    expect(new Set(sink.received.map((m) => m.messageId)).size).toBe(3)
    expect((await messagesOf(s)).map((m) => m.kind)).toEqual([
      'claim_denied',
      'claim_opened',
      'contract_in_force',
    ])
  })
})

describe('a mail server that refuses', () => {
  it('is tried again with back-off, each attempt recorded, until it accepts', async () => {
    await fresh()
    const s = await seller(ctx)
    await activated(s, galaxy)
    sink.state.refusing = true
    expect(await deliver()).toMatchObject({ queued: 1, retried: 1 })
    expect(await deliver()).toMatchObject({ retried: 0 }) // not due yet
    minutes(1)
    expect(await deliver()).toMatchObject({ retried: 1 })
    sink.state.refusing = false
    minutes(4)
    expect(await deliver()).toMatchObject({ sent: 0 }) // the second pause is 5 minutes
    minutes(1)
    expect(await deliver()).toMatchObject({ sent: 1 })
    expect(sink.received).toHaveLength(1)
    const [message] = await messagesOf(s)
    expect(message).toMatchObject({ state: 'sent', attempts: 3 })
    const attempts = await ctx.db
      .selectFrom('message_attempts')
      .select(['outcome', 'response'])
      .where('message_id', '=', message?.id as number)
      .orderBy('id')
      .execute()
    expect(attempts.map((a) => a.outcome)).toEqual(['refused', 'refused', 'sent'])
    expect(attempts[0]?.response).toMatch(/451/)
  })

  it('gives up after 24 hours: failed', async () => {
    await fresh()
    const s = await seller(ctx)
    await activated(s, galaxy)
    const queuedAt = now
    sink.state.refusing = true
    try {
      for (let round = 0; round < 30; round += 1) {
        await deliver()
        s.token = await s.login()
        const [message] = await messagesOf(s)
        if (message?.state !== 'pending') break
        minutes(60)
      }
    } finally {
      sink.state.refusing = false
    }
    s.token = await s.login()
    const [message] = await messagesOf(s)
    expect(message?.state).toBe('failed')
    expect(now.getTime() - queuedAt.getTime()).toBeLessThanOrEqual(25 * 3_600_000)
    expect(message?.attempts).toBeGreaterThan(5)
  })
})

describe('a worker that dies between sending and recording', () => {
  it('sends at most one duplicate, with the same Message-ID, once its lease runs out', async () => {
    await fresh()
    const s = await seller(ctx)
    await activated(s, galaxy)
    expect(await dispatchEventMessages(ctx.db, { now, portalUrl: null })).toBe(1)
    // The first worker: queues, leases and sends, then dies before writing the outcome.
    const transport = smtpTransport(sink.url)
    try {
      const claimed = await claimMessages(ctx.db, { now, limit: 10, leaseSeconds: MESSAGE_LEASE_SECONDS })
      expect(claimed).toHaveLength(1)
      const ctxSend = {
        db: ctx.db,
        transport,
        from: ctx.config.mail.from,
        timeZone: ctx.config.timeZone,
        base: 'http://localhost:3000',
        now: () => now,
      }
      expect(await sendMessage(ctxSend, claimed[0] as (typeof claimed)[number])).toMatchObject({ ok: true })
    } finally {
      transport.close()
    }
    // A new worker leaves it alone while the lease holds, then sends it again.
    expect(await deliver()).toMatchObject({ sent: 0 })
    minutes(2)
    expect(await deliver()).toMatchObject({ sent: 1 })
    expect(await deliver()).toMatchObject({ sent: 0 })
    expect(sink.received).toHaveLength(2)
    expect(sink.received[0]?.messageId).toBe(sink.received[1]?.messageId)
    expect((await messagesOf(s))[0]).toMatchObject({ state: 'sent', attempts: 2 })
  })
})

describe('notify_insured off', () => {
  it('sends the partner’s customers nothing (but their sign-in messages)', async () => {
    await fresh()
    const s = await seller(ctx)
    await retryingTransaction(ctx.db, (trx) => setNotifyInsured(trx, s.partnerId, false))
    await activated(s, galaxy)
    expect(await deliver()).toMatchObject({ queued: 0, sent: 0 })
    expect(await messagesOf(s)).toEqual([])
    expect(sink.received).toHaveLength(0)
  })
})
