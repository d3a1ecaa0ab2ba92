import { randomBytes } from 'node:crypto'
import Stripe from 'stripe'
import type { Db } from '../../src/db/database.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { addMonthsClamped } from '../../src/shared/time.js'
import * as load from './load.js'
import { type Call, check, f, log, type Session, summary, verdict } from './load.js'
import { inBatches, type PartnerData } from './seed.js'

// `--stripe`: Stripe's signed `payment_intent.succeeded` at POST /stripe/webhooks, each for a pending
// PIX code of the own-gateway partner (its installment 1 paid, the subscription activated, the
// partner's events written), a distinct event id each, and 1 in 20 a repeat of one sent before.
// The most a second one API process applies (closed loop), then the p99 at half that (open loop).

const TARGET_RATE = 500
const TARGET_P99_MS = 50
const REPEATS = 0.05

/** The webhook signing secret the bench's service verifies with (serviceEnv). */
export const BENCH_WEBHOOK_SECRET = `whsec_bench${randomBytes(16).toString('hex')}`

export type PixCode = { reference: string; partnerId: number; subscriptionId: number; amount: number }

/**
 * Every seeded subscription of the own-gateway partner awaiting its first payment, with installment 1
 * pending and a pending PIX code for it, as `POST …/installments/{iid}/pix` leaves them.
 */
export async function seedPixCodes(db: Db, partners: PartnerData[]): Promise<PixCode[]> {
  const own = partners.find((p) => p.gateway === 'own')
  check(own, 'the demo should have an own-gateway partner')
  const now = new Date()
  const at = now.toISOString()
  const today = at.slice(0, 10)
  // Contracted today: the worker's 30-day expiry of unpaid ones leaves them alone.
  await retryingTransaction(db, (trx) =>
    trx
      .updateTable('subscriptions')
      .set({
        status: 'pending',
        canceled_at: null,
        cancel_reason: null,
        cancel_comment: null,
        created_at: at,
        updated_at: at,
        ends_on: addMonthsClamped(today, 12),
      })
      .where('id', '>=', own.firstId)
      .where('id', '<=', own.lastId)
      .execute(),
  )
  const subscriptions = await db
    .selectFrom('subscriptions')
    .select(['id', 'monthly_premium'])
    .where('id', '>=', own.firstId)
    .where('id', '<=', own.lastId)
    .orderBy('id')
    .execute()
  await inBatches(
    subscriptions.length,
    (n) => {
      const s = subscriptions[n] as (typeof subscriptions)[number]
      return {
        subscription_id: s.id,
        number: 1,
        amount: s.monthly_premium,
        due_date: today,
        status: 'pending' as const,
        failed_attempts: 0,
        created_at: at,
      }
    },
    (rows) => retryingTransaction(db, (trx) => trx.insertInto('installments').values(rows).execute()),
  )
  const installments = await db
    .selectFrom('installments')
    .select(['id', 'subscription_id', 'amount'])
    .where('subscription_id', '>=', own.firstId)
    .where('subscription_id', '<=', own.lastId)
    .orderBy('id')
    .execute()
  const expires = new Date(now.getTime() + 3 * 3_600_000).toISOString()
  await inBatches(
    installments.length,
    (n) => {
      const i = installments[n] as (typeof installments)[number]
      return {
        partner_id: own.id,
        method: 'pix' as const,
        installment_id: i.id,
        amount: i.amount,
        status: 'pending' as const,
        gateway_reference: `pi_bench${String(i.id).padStart(10, '0')}`,
        code: `00020126360014BR.GOV.BCB.PIX0114bench${i.id}5204000053039865802BR6304BNCH`,
        image_token: randomBytes(18).toString('base64url'),
        expires_at: expires,
        created_at: at,
        updated_at: at,
      }
    },
    (rows) => retryingTransaction(db, (trx) => trx.insertInto('payment_codes').values(rows).execute()),
  )
  return installments.map((i) => ({
    reference: `pi_bench${String(i.id).padStart(10, '0')}`,
    partnerId: own.id,
    subscriptionId: i.subscription_id,
    amount: i.amount,
  }))
}

/** A delivery of Stripe's: the event as Stripe sends it (a PaymentIntent of the API's shape), signed. */
function delivery(code: PixCode, n: number) {
  const created = Math.floor(Date.now() / 1000)
  const payload = JSON.stringify({
    id: `evt_bench${String(n).padStart(10, '0')}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: code.reference,
        object: 'payment_intent',
        amount: code.amount,
        amount_received: code.amount,
        currency: 'brl',
        status: 'succeeded',
        payment_method_types: ['pix'],
        livemode: false,
        created: created - 60,
        metadata: {
          amparo_partner_id: String(code.partnerId),
          amparo_reference: `subscription-${code.subscriptionId}-installment-1`,
        },
      },
    },
  })
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: BENCH_WEBHOOK_SECRET })
  return { payload, headers: { 'stripe-signature': signature } }
}

/** Deliveries of the codes in order, each once, with repeats among them; `exhausted` once none is left. */
function deliveries(codes: PixCode[], session: Session) {
  const sent: ReturnType<typeof delivery>[] = []
  let next = 0
  const state = { exhausted: 0 }
  const make = (): Call => {
    const repeat = sent.length > 0 && (Math.random() < REPEATS || next >= codes.length)
    if (next >= codes.length) state.exhausted += 1
    const one = repeat
      ? (sent[Math.floor(Math.random() * sent.length)] as ReturnType<typeof delivery>)
      : delivery(codes[next] as PixCode, next++)
    if (!repeat) sent.push(one)
    return { method: 'POST', path: '/stripe/webhooks', session, body: one.payload, headers: one.headers }
  }
  return { make, state }
}

/** What the service applied: each distinct event once, each paying one code and its installment once. */
async function applied(db: Db, partnerId: number) {
  const count = async (query: Promise<{ n: number | string | bigint } | undefined>) =>
    Number((await query)?.n)
  const events = await count(
    db
      .selectFrom('stripe_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('type', '=', 'payment_intent.succeeded')
      .executeTakeFirst(),
  )
  const codes = await count(
    db
      .selectFrom('payment_codes')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('partner_id', '=', partnerId)
      .where('status', '=', 'paid')
      .executeTakeFirst(),
  )
  const paid = await count(
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('partner_id', '=', partnerId)
      .where('type', '=', 'installment.paid')
      .executeTakeFirst(),
  )
  return { events, codes, paid }
}

export interface StripeRun {
  port: number
  /** The server's load for `seconds`, its CPU counted (run.ts's measure). */
  measure: (make: () => Call) => Promise<load.Measurement>
  /** The open-loop run, its CPU counted. */
  paced: (make: () => Call, rate: number) => Promise<load.Measurement>
  db: Db
}

export async function stripeEventsBench(run: StripeRun, codes: PixCode[], session: Session) {
  check(codes.length > 0, 'no PIX codes seeded')
  const partnerId = (codes[0] as PixCode).partnerId
  const { make, state } = deliveries(codes, session)
  const before = await applied(run.db, partnerId)
  const sanity = make()
  const first = await load.call(run.port, sanity.path, undefined, sanity.body, 200, sanity.headers)
  check(first.json.result === 'applied', `the first event: ${first.text}`)

  log('(s) POST /stripe/webhooks, closed loop: the most applied a second…')
  const most = { name: '(s) Stripe events, closed loop', ...summary([await run.measure(make)]) }
  const rate = Math.floor(most.rps / 2)
  log(`(s) at ${f(rate)}/s, half that, open loop…`)
  const half = { name: `(s) at ${f(rate)}/s, open loop`, ...summary([await run.paced(make, rate)]) }
  const rows = [most, half].map((s): load.Row => [s.name, s, s.problems])
  log(`\n${load.scenarioTable(rows, 'problems')}\n`)
  if (state.exhausted)
    log(`  ${f(state.exhausted)} deliveries were repeats only: every code was paid (seed more)`)

  const after = await applied(run.db, partnerId)
  const done = {
    events: after.events - before.events,
    codes: after.codes - before.codes,
    paid: after.paid - before.paid,
  }
  log(`  applied: ${f(done.events)} events, ${f(done.codes)} codes paid, ${f(done.paid)} installment.paid`)
  check(done.events === done.codes && done.codes === done.paid, 'an event applied other than once')
  log(verdict(most.rps >= TARGET_RATE && !most.problems, `${f(most.rps)} events/s applied ≥ ${TARGET_RATE}`))
  const atHalf = `p99 ${f(half.p99, 2)} ms at ${f(rate)} events/s (≤ ${TARGET_P99_MS} ms)`
  log(verdict(half.p99 <= TARGET_P99_MS && !half.problems, atHalf))
}
