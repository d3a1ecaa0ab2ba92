import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StripeServer } from '../helpers/stripe-server.js'
import {
  amparoEnv,
  attempt,
  CARD,
  ClusterDatabase,
  call,
  contract,
  dropAgents,
  expectStatus,
  installmentIds,
  killAll,
  log,
  type Partner,
  type Proc,
  parseDemo,
  preparePartner,
  RequestFailure,
  runAmparo,
  startApi,
  startWorker,
  stopProc,
  waitWorkerRound,
  withTimeout,
} from './harness.js'

// One `amparo serve` and one `amparo worker --interval 1` on a fresh PostgreSQL database, charging
// cards through the local Stripe-compatible server (test/helpers/stripe-server.ts) in this process.

let db: ClusterDatabase
let env: Record<string, string>
let api: Proc
let worker: Proc
let own: Partner
const stripe = new StripeServer()
const runStarted = Date.now()

beforeAll(async () => {
  await stripe.start()
  db = await ClusterDatabase.create()
  env = amparoEnv({
    DATABASE_URL: db.url,
    DB_POOL_MAX: '4',
    AMPARO_PAYMENT_GATEWAY: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_amparo0cluster0key',
    STRIPE_API_URL: stripe.url,
  })
  await runAmparo(['migrate', '--json'], env)
  const demo = parseDemo(await runAmparo(['demo', '--json'], env))
  worker = startWorker('worker-stripe', { ...env, DB_POOL_MAX: '3' })
  api = await startApi('api-stripe', env)
  await waitWorkerRound(worker)
  const ownDemo = demo.find((p) => p.gateway === 'own')
  if (!ownDemo) throw new Error('the demo has no own-gateway partner')
  own = await preparePartner([api.port], ownDemo)
  log(`database ${db.name}; api :${api.port}, 1 worker, Stripe-compatible server ${stripe.url}`)
}, 120_000)

afterAll(async () => {
  dropAgents()
  const procs = [api, worker].filter((p): p is Proc => p?.alive())
  const exits = await Promise.all(procs.map(async (p) => ({ name: p.name, ...(await stopProc(p)) })))
  await killAll()
  await db?.drop()
  await stripe.stop()
  log(`stripe cluster run: ${((Date.now() - runStarted) / 1000).toFixed(1)} s`)
  for (const e of exits) expect(e, `${e.name} exit`).toMatchObject({ code: 0, forced: false })
}, 60_000)

describe('a database cut during a first charge', () => {
  it('Stripe approves while PostgreSQL is unreachable: the worker records it after recovery, one charge', async () => {
    const id = expectStatus(await contract(api.port, own, `stripe-cut-${runStarted}`), 201).json.id as number
    const [first] = await installmentIds(api.port, own, id)
    const reference = `subscription-${id}-installment-1`
    const intents = () =>
      stripe.paymentIntents.filter((pi) => pi.params['metadata[amparo_reference]'] === reference)

    // Stripe takes the money, then its answer waits while the database goes away.
    const held = stripe.holdNext('/v1/payment_intents')
    const paying = attempt(api.port, 'POST', `/subscriptions/${id}/payment`, {
      token: own.token,
      body: { creditCard: { number: CARD.number, expiry: CARD.expiry, cvv: CARD.cvv } },
      timeoutMs: 90_000,
    })
    await withTimeout(held.processed, 60_000, 'the PaymentIntent call')
    const cutAt = Date.now()
    await db.allowConnections(false)
    let terminated = await db.terminateConnections()
    held.release()
    // Cut until the API has answered (it can record nothing), and at least 3 s.
    let answered = false
    void paying.finally(() => {
      answered = true
    })
    while (!answered || Date.now() - cutAt < 3000) {
      terminated += await db.terminateConnections()
      await sleep(200)
      if (Date.now() - cutAt > 60_000) break
    }
    await db.allowConnections(true)
    const restoredAt = Date.now()
    const answer = await paying
    const status = answer instanceof RequestFailure ? answer.code : answer.status

    // Nobody retries: the worker finds the stored attempt once its call is surely over (35 s) and
    // records it. Generous deadline: a busy machine, a worker reconnecting after the outage.
    const installment = async () =>
      (await db.query(`select status from installments where id = ${first}`))[0]?.status
    const deadline = Date.now() + 150_000
    while ((await installment().catch(() => undefined)) !== 'paid' && Date.now() < deadline) await sleep(1000)
    const recordedAfter = Date.now() - restoredAt

    const ledger = await db.query(
      `select outcome, transaction_id from payments where installment_id = ${first} order by id`,
    )
    const events = await db.query(
      `select type, count(*)::int as n from events where partner_id = ${own.id} group by type order by type`,
    )
    const attempts = await db.query(
      `select id from card_attempts where installment_id = ${first} and recorded_at is null`,
    )
    const shown = await call(api.port, 'GET', `/subscriptions/${id}`, { token: own.token })
    log(
      `stripe cut: first answer ${status} (db cut ${restoredAt - cutAt} ms, ${terminated} connections ended); ` +
        `installment ${await installment()} ${recordedAfter} ms after recovery; PaymentIntents ${intents().length} ` +
        `(${stripe.requests.filter((r) => r.path === '/v1/payment_intents').length} calls), ` +
        `ledger ${JSON.stringify(ledger)}; events ${JSON.stringify(events)}`,
    )

    expect(status).toBe(503)
    expect(await installment()).toBe('paid')
    expect(worker.output()).toContain('unrecorded card charge recorded')
    // Exactly one PaymentIntent, succeeded, its replay by the worker answered from its key.
    expect(intents()).toHaveLength(1)
    expect(intents()[0]?.status).toBe('succeeded')
    const sent = stripe.requests.filter(
      (r) => r.path === '/v1/payment_intents' && r.params['metadata[amparo_reference]'] === reference,
    )
    expect(sent.length).toBeGreaterThanOrEqual(2)
    expect(sent.filter((r) => r.processed)).toHaveLength(1)
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1)
    expect(stripe.charges.filter((pi) => pi.params['metadata[amparo_reference]'] === reference)).toHaveLength(
      1,
    )
    expect(ledger).toEqual([{ outcome: 'approved', transaction_id: intents()[0]?.id }])
    const count = (type: string) => events.find((e) => e.type === type)?.n
    expect(count('installment.paid')).toBe(1)
    expect(count('subscription.activated')).toBe(1)
    expect(attempts).toEqual([])
    expect(shown.status).toBe(200)
    expect(shown.json).toMatchObject({ status: 'pago', card: { last4: CARD.number.slice(-4) } })
  }, 300_000)
})
