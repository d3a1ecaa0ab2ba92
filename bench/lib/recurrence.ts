import Stripe from 'stripe'
import type { Db } from '../../src/db/database.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { formatDate } from '../../src/shared/time.js'
import { StripeServer } from '../../test/helpers/stripe-server.js'
import { type Bench, f, log, markdown, verdict } from './load.js'
import { runNode } from './proc.js'
import { inBatches, seed } from './seed.js'

// `--recurrence`: 2,000 due installments charged by `amparo worker --once` (dist/) against the local
// Stripe-compatible server answering each charge in 300 ms: one worker, then two at once.

const COUNT = 2000
const LATENCY_MS = 300
const TARGETS = { 1: 50, 2: 90 } as const
const SECRET = 'sk_test_amparo0bench0key'

export async function recurrenceBench({ cli, env }: Bench, db: Db, timeZone: string) {
  const stripe = await new StripeServer().start()
  // One customer with one card saved at the fake server, as the service's Stripe calls make them;
  // every subscription charges it.
  const port = new URL(stripe.url).port
  const client = new Stripe(SECRET, { host: '127.0.0.1', port, protocol: 'http' })
  const customer = (await client.customers.create()).id
  const exp_year = new Date().getUTCFullYear() + 3
  const card = { number: '4111111111111111', exp_month: 12, exp_year, cvc: '123' }
  const method = (await client.paymentMethods.create({ type: 'card', card })).id
  await client.setupIntents.create({ customer, payment_method: method, confirm: true, usage: 'off_session' })
  const [, own] = await seed(db, [0, COUNT])
  if (own?.gateway !== 'own') throw new Error('the second demo partner should use the own gateway')
  const now = new Date().toISOString()
  await retryingTransaction(db, (trx) =>
    trx
      .updateTable('subscriptions')
      .set({ status: 'pago', card_token: method, card_brand: 'visa', card_last4: '1111' })
      .set({ canceled_at: null, cancel_reason: null })
      .where('partner_id', '=', own.id)
      .execute(),
  )
  // The demo's card-paid contracts gave their customer one already.
  const link = { gateway_customer_id: customer, created_at: now }
  await retryingTransaction(db, (trx) =>
    trx
      .insertInto('gateway_customers')
      .values(own.customerIds.map((customer_id) => ({ customer_id, ...link })))
      .onConflict((oc) => oc.column('customer_id').doUpdateSet({ gateway_customer_id: customer }))
      .execute(),
  )
  stripe.latencyMs = LATENCY_MS
  const gateway = { AMPARO_PAYMENT_GATEWAY: 'stripe', STRIPE_SECRET_KEY: SECRET, STRIPE_API_URL: stripe.url }
  const worker = async () => {
    const output = await runNode([cli, 'worker', '--once', '--json'], { ...env, ...gateway })
    return Number(JSON.parse(output).recurrence?.charged)
  }

  const rows: unknown[][] = []
  for (const workers of [1, 2] as const) {
    // Installment `workers + 1` of every subscription falls due today.
    const [number, today] = [workers + 1, formatDate(new Date(), timeZone)]
    const due = (n: number) => ({
      subscription_id: own.firstId + n,
      number,
      amount: 4990,
      status: 'pending' as const,
      failed_attempts: 0,
      due_date: today,
      next_attempt_on: today,
      created_at: now,
    })
    await inBatches(COUNT, due, (rows) =>
      retryingTransaction(db, (trx) => trx.insertInto('installments').values(rows).execute()),
    )
    log(`${workers} worker(s) charging ${COUNT} installments, ${LATENCY_MS} ms a charge…`)
    const from = stripe.requests.length
    stripe.maxInFlight = 0
    const started = performance.now()
    const charged = await Promise.all(Array.from({ length: workers }, worker))
    const seconds = (performance.now() - started) / 1000
    // Exactly once: charges the server processed (per installment, from the idempotency key), the ledger.
    const charges = stripe.requests
      .slice(from)
      .filter((r) => r.path === '/v1/payment_intents' && r.processed)
      .map((r) => /installment-(\d+)-charge/.exec(r.idempotencyKey ?? '')?.[1])
    const ledger = await db
      .selectFrom('payments as p')
      .innerJoin('installments as i', 'i.id', 'p.installment_id')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.count<number>('p.installment_id').distinct().as('ids'),
      ])
      .where('i.number', '=', number)
      .where('p.route', '=', 'recurrence')
      .where('p.outcome', '=', 'approved')
      .executeTakeFirstOrThrow()
    const counts = [charges.length, new Set(charges).size, Number(ledger.n), Number(ledger.ids)]
    // Charges recorded in the ledger, not the installments asked for: a run that charged nothing fails.
    const rate = Number(ledger.n) / seconds
    const once = counts.every((n) => n === COUNT)
    const verdicts = [
      verdict(rate >= TARGETS[workers], `≥ ${TARGETS[workers]} charges/s`),
      verdict(once, 'each installment charged once'),
    ]
    const cells = [f(seconds, 1), f(rate, 1), charged.map((n) => f(n)).join(' + '), stripe.maxInFlight]
    rows.push([workers, ...cells, ...counts.slice(0, 3).map((n) => f(n)), verdicts.join('; ')])
  }
  const head = ['workers', 's', 'charges/s', 'charged by each', 'max in flight', 'charges at the server']
  log(`\n${markdown([...head, 'installments charged', 'ledger rows', 'verdicts'], rows)}`)
  log("s: spawn to the last worker's exit (start-up included).")
  await stripe.stop()
}
