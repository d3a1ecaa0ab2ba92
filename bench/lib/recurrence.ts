import type { Db } from '../../src/db/database.js'
import { formatDate } from '../../src/shared/time.js'
import { StripeServer } from '../../test/helpers/stripe-server.js'
import { f, verdict } from './load.js'
import { runNode } from './proc.js'
import { inBatches, seed } from './seed.js'

// `--recurrence`: 2,000 due installments charged by `amparo worker --once` (dist/) against the local
// Stripe-compatible server answering each charge in 300 ms: one worker, then two at once.

const COUNT = 2000
const LATENCY_MS = 300
const TARGETS = { 1: 50, 2: 90 } as const
const SECRET_KEY = 'sk_test_amparo0bench0key'

interface Options {
  db: Db
  postgres: boolean
  timeZone: string
  cli: string
  env: NodeJS.ProcessEnv
  log: (line?: string) => void
}

/** One worker, then two at once, each on 2,000 installments due today; prints a table and verdicts. */
export async function recurrenceBench({ db, postgres, timeZone, cli, env, log }: Options) {
  const stripe = await new StripeServer().start()
  try {
    // One customer with one card saved at the fake server, as Stripe's calls make them (a customer,
    // a PaymentMethod from card data, a SetupIntent attaching it); every subscription charges it.
    const post = async (path: string, params: Record<string, string>) => {
      const headers = { authorization: `Bearer ${SECRET_KEY}` }
      const answer = await fetch(`${stripe.url}${path}`, {
        method: 'POST',
        headers,
        body: new URLSearchParams(params),
      })
      if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`)
      return ((await answer.json()) as { id: string }).id
    }
    const customer = await post('/v1/customers', {})
    const year = String(new Date().getUTCFullYear() + 3)
    const cardData = { 'card[number]': '4111111111111111', 'card[exp_month]': '12', 'card[exp_year]': year }
    const card = await post('/v1/payment_methods', { type: 'card', 'card[cvc]': '123', ...cardData })
    await post('/v1/setup_intents', { customer, payment_method: card, confirm: 'true', usage: 'off_session' })
    const [, own] = await seed(db, postgres, [0, COUNT])
    if (own?.gateway !== 'own') throw new Error('the second demo partner should use the own gateway')
    const now = new Date().toISOString()
    await db
      .updateTable('subscriptions')
      .set({ status: 'pago', card_token: card, card_brand: 'visa', card_last4: '1111' })
      .set({ canceled_at: null, cancel_reason: null })
      .where('partner_id', '=', own.id)
      .execute()
    const customers = own.customerIds.map((id) => ({ customer_id: id, gateway_customer_id: customer }))
    await db
      .insertInto('gateway_customers')
      .values(customers.map((c) => ({ ...c, created_at: now })))
      .execute()
    stripe.latencyMs = LATENCY_MS
    const gateway = {
      AMPARO_PAYMENT_GATEWAY: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_API_URL: stripe.url,
    }
    const worker = async () =>
      Number(
        JSON.parse(await runNode([cli, 'worker', '--once', '--json'], { ...env, ...gateway })).recurrence
          ?.charged,
      )

    const lines: string[] = []
    let met = 0
    for (const workers of [1, 2] as const) {
      // Installment `workers + 1` of every subscription falls due today.
      const [number, today] = [workers + 1, formatDate(new Date(), timeZone)]
      const due = { number, amount: 4990, due_date: today, next_attempt_on: today, created_at: now }
      const row = (n: number) => ({
        ...due,
        status: 'pending' as const,
        failed_attempts: 0,
        subscription_id: own.firstId + n,
      })
      await inBatches(COUNT, row, (rows) => db.insertInto('installments').values(rows).execute())
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
      const verdicts = [
        verdict(rate >= TARGETS[workers], `≥ ${TARGETS[workers]} charges/s`),
        verdict(
          counts.every((n) => n === COUNT),
          'each installment charged once',
        ),
      ]
      met += verdicts.filter((v) => v.startsWith('ok')).length
      const cells = [
        workers,
        f(seconds, 1),
        f(rate, 1),
        charged.map((n) => f(n)).join(' + '),
        stripe.maxInFlight,
      ]
      lines.push(`| ${[...cells, ...counts.slice(0, 3).map((n) => f(n)), verdicts.join('; ')].join(' | ')} |`)
    }
    log(
      '\n| workers | s | charges/s | charged by each | max in flight | charges at the server | installments charged | ledger rows | verdicts |',
    )
    log(`|${' --- |'.repeat(9)}`)
    for (const line of lines) log(line)
    log(`\n${met} of 4 verdicts met. s: spawn to the last worker's exit (start-up included).`)
  } finally {
    await stripe.stop()
  }
}
