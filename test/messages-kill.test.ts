import { type ChildProcess, spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { amparoProcess } from './helpers/cli.js'
import { smtpSink } from './helpers/smtp-sink.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, seller } from './helpers/world.js'

// A real `amparo worker` killed (-9) after the mail server received a message and before the
// worker recorded its answer (README, Messages to the insured): the next worker sends it once
// more, with the same Message-ID (a mail system drops the copy), and it is recorded sent once.
// On either database (SQLite on a file, shared with the workers).

const root = fileURLToPath(new URL('..', import.meta.url))
const sink = await smtpSink()
afterAll(() => sink.close())
const ctx = useTestApp({
  onDisk: true,
  env: { AMPARO_SMTP_URL: sink.url, AMPARO_MAIL_FROM: 'Amparo <avisos@amparo.example>' },
})

/** Polls `check` until it holds: generous, a busy machine starts a worker slowly. */
async function until(what: string, check: () => Promise<boolean> | boolean, seconds = 120) {
  for (const deadline = Date.now() + seconds * 1000; !(await check()); await sleep(100))
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`)
}

const workers: ChildProcess[] = []
afterAll(() => {
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

/** `amparo worker` on the test database: its message loop polls every half second. */
function startWorker() {
  const child = spawn(process.execPath, amparoProcess('worker'), {
    cwd: root,
    env: { ...process.env, ...ctx.env, AMPARO_ENV: 'test', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let output = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  workers.push(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    output: () => output,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

let galaxy: number
beforeAll(async () => {
  galaxy = await galaxyOf(ctx)
}, 120_000)

describe('a worker killed between the mail server’s receipt and the record', () => {
  it('sends the message at most twice, with one Message-ID, and records it sent once', async () => {
    const s = await seller(ctx)
    const sub = await contractSubscription(ctx, s, galaxy)
    const [first] = (await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)) as { id: number }[]
    sink.state.holding = true
    const before = sink.received.length
    await answer(ctx, s, 'POST', `/subscriptions/${sub.id}/installments/${first?.id}/notify-payment`)

    const dying = startWorker()
    await until('the first worker’s message at the mail server', () => {
      if (dying.exited()) throw new Error(`the worker exited:\n${dying.output()}`)
      return sink.received.length > before
    })
    await dying.kill()
    const mine = sink.received.slice(before)
    expect(mine).toHaveLength(1)
    const messageId = mine[0]?.messageId
    expect(messageId).toMatch(/^<evt_.+\.c\d+@amparo\.example>$/)

    // Nothing recorded: the message is still leased by the dead worker, its attempt unwritten.
    const row = await ctx.db
      .selectFrom('messages')
      .select(['id', 'state', 'attempts', 'locked_until'])
      .where('message_id', '=', messageId?.slice(1, messageId.indexOf('@')) ?? '')
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ state: 'pending', attempts: 1 })
    expect(row.locked_until).not.toBeNull()
    const attempts = () =>
      ctx.db.selectFrom('message_attempts').select('outcome').where('message_id', '=', row.id).execute()
    expect(await attempts()).toEqual([])

    // Its 60 s lease taken as run out (what a minute's wait does), the mail server answering again:
    // the next worker sends it once more and records it.
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('messages')
        .set({ locked_until: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', row.id)
        .execute(),
    )
    sink.state.holding = false
    const next = startWorker()
    const state = () =>
      ctx.db
        .selectFrom('messages')
        .select(['state', 'attempts'])
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow()
    await until('the message recorded sent', async () => {
      if (next.exited()) throw new Error(`the worker exited:\n${next.output()}`)
      return (await state()).state === 'sent'
    })
    await next.kill('SIGTERM')

    const copies = sink.received.slice(before)
    expect(copies.length).toBeGreaterThanOrEqual(1)
    expect(copies.length).toBeLessThanOrEqual(2)
    expect(new Set(copies.map((m) => m.messageId))).toEqual(new Set([messageId]))
    expect(await state()).toMatchObject({ state: 'sent', attempts: 2 })
    expect(await attempts()).toEqual([{ outcome: 'sent' }])
  }, 300_000)
})
