import { describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { queueSignInMessage } from '../src/modules/messages/message.service.js'
import { consumeSignInLink, createSignInLink } from '../src/modules/messages/sign-in-link.service.js'
import { deliverMessagesOnce } from '../src/worker/messages.job.js'
import type { Body } from './helpers/api-types.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, seller } from './helpers/world.js'

// The portal's sign-in messages, kept without a mail server and read at GET /sandbox/messages by
// the partner whose customer they go to; the single-use sign-in links.

type MessageList = Body<'listSandboxMessages', 200>

let now = new Date('2026-12-07T12:00:00Z')
const clock = { now: () => now }
const ctx = useTestApp({ clock })

const deliver = () =>
  deliverMessagesOnce({ db: ctx.db, clock, timeZone: ctx.config.timeZone, mail: ctx.config.mail })

describe('GET /sandbox/messages', () => {
  it("shows a sign-in code queued in a transaction, kept by the worker, to the customer's partner only", async () => {
    const a = await seller(ctx)
    const b = await seller(ctx)
    await retryingTransaction(ctx.db, (trx) =>
      queueSignInMessage(trx, { customerId: a.customerId, code: '482913', now }),
    )
    const queued: MessageList = await answer(ctx, a, 'GET', `/sandbox/messages?customer_id=${a.customerId}`)
    expect(queued.data).toHaveLength(1)
    const [message] = queued.data
    expect(message).toMatchObject({
      customer_id: a.customerId,
      kind: 'sign_in',
      event_id: null,
      state: 'pending',
      subject: 'Seu código de acesso: 482913',
      created_at: '2026-12-07 09:00:00',
    })
    expect(message?.to).toMatch(/@/)
    expect(message?.text).toContain('482913')

    expect(ctx.config.mail.smtpUrl).toBeNull()
    expect(await deliver()).toMatchObject({ kept: 1 })
    const kept: MessageList = await answer(ctx, a, 'GET', '/sandbox/messages?kind=sign_in')
    expect(kept.data.map((m) => [m.id, m.state, m.sent_at])).toEqual([[message?.id, 'kept', null]])

    const other: MessageList = await answer(ctx, b, 'GET', '/sandbox/messages')
    expect(other.data).toEqual([])
    const asked: MessageList = await answer(ctx, b, 'GET', `/sandbox/messages?customer_id=${a.customerId}`)
    expect(asked.data).toEqual([])
  })

  it('refuses a limit out of 1–100 and an unknown kind', async () => {
    const a = await seller(ctx)
    for (const query of ['limit=0', 'limit=101', 'kind=newsletter'])
      await answer(ctx, a, 'GET', `/sandbox/messages?${query}`, undefined, 422)
  })
})

describe('sign-in links', () => {
  it('lets its customer in once, within 24 hours', async () => {
    const a = await seller(ctx)
    const portalUrl = ctx.config.mail.portalUrl as string
    const make = () =>
      retryingTransaction(ctx.db, (trx) => createSignInLink(trx, a.customerId, { portalUrl, now }))
    const use = (token: string) => retryingTransaction(ctx.db, (trx) => consumeSignInLink(trx, token, now))
    const link = await make()
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:3002\/#\/entrar\/[A-Za-z0-9_-]{43}$/)
    const token = new URL(link).hash.replace('#/entrar/', '')
    expect(await use(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull()
    expect(await use(token)).toBe(a.customerId)
    expect(await use(token)).toBeNull()

    await retryingTransaction(ctx.db, (trx) =>
      queueSignInMessage(trx, { customerId: a.customerId, link, now }),
    )
    const list: MessageList = await answer(ctx, a, 'GET', '/sandbox/messages?limit=1')
    expect(list.data[0]?.text).toContain(link)

    const later = new URL(await make()).hash.replace('#/entrar/', '')
    const queuedAt = now
    now = new Date(queuedAt.getTime() + 24 * 3_600_000 - 1000)
    const last = new URL(await make()).hash.replace('#/entrar/', '')
    now = new Date(queuedAt.getTime() + 24 * 3_600_000)
    expect(await use(later)).toBeNull()
    expect(await use(last)).toBe(a.customerId)
    now = queuedAt
  })
})
