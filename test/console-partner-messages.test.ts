import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { operations } from '../console/src/api/schema.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { queueSignInMessage } from '../src/modules/messages/message.service.js'
import { systemClock } from '../src/shared/time.js'
import { deliverMessagesOnce } from '../src/worker/messages.job.js'
import { type ClaimParty, claimParty, paidSubscription } from './helpers/claim-decisions-world.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { seedCatalog } from './helpers/world.js'

// The operator's switch of a partner's messages to its customers (README, Messages to the
// insured), through the console's API: an admin's, audited, read back on the partner's page and
// obeyed by the worker; and a customer's messages as the console shows them, the sign-in code in
// `test` only.

type Partner = operations['getConsolePartner']['responses'][200]['content']['application/json']

let consoleCtx: ConsoleTestContext
let production: ConsoleTestContext
let p: ClaimParty
let viewer: ConsoleHeaders
let admin: ConsoleHeaders

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  production = await createConsoleApp({ over: () => ctx, config: { env: 'production' } })
  p = await claimParty(ctx.app, ctx.db, (await seedCatalog(ctx.db)).model('Galaxy S25').id)
  viewer = await consoleCtx.loginAs('viewer')
  admin = await consoleCtx.loginAs('admin')
})
afterAll(async () => {
  await consoleCtx?.close()
  await production?.close()
})

const switchTo = (on: unknown, headers: ConsoleHeaders, id = p.partner.id) =>
  consoleCtx.console.inject({
    method: 'POST',
    url: `/api/partners/${id}/notify-insured`,
    headers,
    payload: { notify_insured: on },
  })
const keep = () =>
  deliverMessagesOnce({
    db: ctx.db,
    clock: systemClock,
    timeZone: ctx.config.timeZone,
    mail: ctx.config.mail,
  })
const messagesOf = async (customerId: number, app = consoleCtx) => {
  const response = await app.console.inject({
    url: `/api/customers/${customerId}/messages`,
    headers: app === consoleCtx ? viewer : await app.loginAs('viewer'),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data as { kind: string; subject: string; state: string }[]
}

describe("a partner's messages to its customers", () => {
  it('are on by default, switched off by an admin only, audited, and read back on its page', async () => {
    const page = await consoleCtx.console.inject({ url: `/api/partners/${p.partner.id}`, headers: viewer })
    expect((page.json() as Partner).notify_insured).toBe(true)

    const refused = await switchTo(false, viewer)
    expect(refused.statusCode, refused.body).toBe(403)
    const off = await switchTo(false, admin)
    expect(off.statusCode, off.body).toBe(200)
    expect(off.json()).toMatchObject({ id: p.partner.id, notify_insured: false })
    const again = await consoleCtx.console.inject({ url: `/api/partners/${p.partner.id}`, headers: viewer })
    expect((again.json() as Partner).notify_insured).toBe(false)

    const audit = await ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'partner.notify_insured')
      .where('record_id', '=', String(p.partner.id))
      .execute()
    expect(audit).toHaveLength(1)
    expect(JSON.parse(String(audit[0]?.before))).toEqual({ notify_insured: true })
    expect(JSON.parse(String(audit[0]?.after))).toEqual({ notify_insured: false })
  })

  it('off: the worker writes none of its events to the customer; back on: it does again', async () => {
    await keep()
    expect((await switchTo(false, admin)).statusCode).toBe(200)
    await paidSubscription(ctx.app, p)
    await keep()
    expect((await messagesOf(p.customerId)).filter((m) => m.kind !== 'sign_in')).toEqual([])

    expect((await switchTo(true, admin)).json()).toMatchObject({ notify_insured: true })
    await paidSubscription(ctx.app, p)
    await keep()
    const written = await messagesOf(p.customerId)
    expect(written.filter((m) => m.kind === 'contract_in_force')).toHaveLength(1)
  })

  it('answers 404 for an unknown partner and 422 for a body without the switch', async () => {
    const unknown = await switchTo(true, admin, 2_000_000)
    expect(unknown.statusCode, unknown.body).toBe(404)
    const wrong = await switchTo('sim', admin)
    expect(wrong.statusCode, wrong.body).toBe(422)
    expect(wrong.json().errors).toHaveProperty('notify_insured')
  })
})

describe("a customer's messages on the console", () => {
  it('show a sign-in code in test, kept, and hide it in production', async () => {
    await retryingTransaction(ctx.db, (trx) =>
      queueSignInMessage(trx, { customerId: p.customerId, code: '482913' }),
    )
    await keep()
    const [signIn] = (await messagesOf(p.customerId)).filter((m) => m.kind === 'sign_in')
    expect(signIn).toMatchObject({ subject: 'Seu código de acesso: 482913', state: 'kept' })

    const hidden = (await messagesOf(p.customerId, production)).filter((m) => m.kind === 'sign_in')
    expect(hidden[0]?.subject).toBe('Seu código de acesso: ••••••')
    expect(JSON.stringify(hidden)).not.toContain('482913')
  })
})
