import { setTimeout as sleep } from 'node:timers/promises'
import { call, f, log, percentiles, type Session, verdict } from './load.js'

// `--clock` (issue 33): another partner's latency while one partner's sandbox clock moves 400 days
// over 150 paid subscriptions, against the same requests at rest; and the 409 a second advance of
// the moving clock gets meanwhile. On SQLite the advance yields to other requests between its
// statements (docs/decisions.md, "An advance shares the process on SQLite").

const PAID = 150
const DAYS = 400
const TARGET_P99_MS = 100
const LANES = 4 // the other partner's request loops, each waiting for its answer before the next
const REST_SECONDS = 3

const show = ({ n, p50, p99, max }: ReturnType<typeof percentiles>) =>
  `${n} requests, p50 ${f(p50, 1)} ms, p99 ${f(p99, 1)} ms, max ${f(max, 1)} ms`

/** `advancing`: the own-gateway partner whose clock moves; `other`: the partner whose requests are timed. */
export async function clockBench(port: number, advancing: Session, other: Session) {
  log(`Contracting ${PAID} subscriptions of partner ${advancing.partner.id}, installment 1 paid by card…`)
  const { customerIds, planIds, models } = advancing.partner
  const card = { creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123', holder: 'BENCH' } }
  for (let i = 0; i < PAID; i++) {
    const customer_id = customerIds[i % customerIds.length]
    const body = { plan_id: planIds[0], customer_id, model_id: models[0]?.id }
    const { json } = await call(port, '/subscriptions', advancing.token, body, 201)
    await call(port, `/subscriptions/${json.id}/payment`, advancing.token, card, 200)
  }

  // The other partner's reads, from LANES loops, until `stop()`: a subscription, then /health.
  const timed = async (stop: () => boolean) => {
    const latencies: number[] = []
    const lane = async () => {
      for (let k = 0; !stop(); k++) {
        const started = performance.now()
        const path = k % 2 ? '/health' : `/subscriptions/${other.partner.firstId}`
        await call(port, path, other.token, undefined, 200)
        if (!stop()) latencies.push(performance.now() - started)
      }
    }
    await Promise.all(Array.from({ length: LANES }, lane))
    return percentiles(latencies)
  }

  log(`At rest: partner ${other.partner.id}'s GET /subscriptions/{id} and /health, ${LANES} loops…`)
  const restEnd = performance.now() + REST_SECONDS * 1000
  const rest = await timed(() => performance.now() > restEnd)
  log(`  ${show(rest)}`)

  log(`During a ${DAYS}-day advance of partner ${advancing.partner.id}'s clock…`)
  let finished = false
  const started = performance.now()
  const advance = call(port, '/sandbox/clock/advance', advancing.token, { days: DAYS }, 200).finally(() => {
    finished = true
  })
  const during = timed(() => finished)
  // A second advance of the same clock once the first has stored a day.
  let second: number | undefined
  for (; !finished && second === undefined; await sleep(20)) {
    const clock = await call(port, '/sandbox/clock', advancing.token)
    if (Number(clock.json.advanced_by_seconds) > 0 && !finished)
      second = (await call(port, '/sandbox/clock/advance', advancing.token, { days: 1 })).status
  }
  const jobs = (await advance).json.jobs as { recurrence: { charged: number } }
  const seconds = (performance.now() - started) / 1000
  const busy = await during
  log(`  the advance: ${f(seconds, 1)} s, ${jobs.recurrence.charged} installments charged`)
  log(`  ${show(busy)}\n`)
  const figure = `${f(busy.p99, 1)} ms ≤ ${TARGET_P99_MS} ms (at rest ${f(rest.p99, 1)} ms)`
  log(verdict(busy.p99 <= TARGET_P99_MS, `another partner's p99 during the advance ${figure}`))
  const answer = second ?? 'not sent (the advance ended first)'
  log(verdict(second === 409, `a second advance of the moving clock: ${answer} (409 expected)`))
}
