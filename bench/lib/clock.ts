import { setTimeout as sleep } from 'node:timers/promises'
import { call, check, quantile, verdict } from './load.js'
import type { PartnerData } from './seed.js'

// `--clock` (issue 33): another partner's latency while one partner's sandbox clock moves 400 days
// over 150 paid subscriptions, against the same requests at rest; and the 409 a second advance of
// the moving clock gets meanwhile. On SQLite the advance yields to other requests between its
// statements (docs/decisions.md, "An advance shares the process on SQLite").

const PAID = 150
const DAYS = 400
const TARGET_P99_MS = 100
/** Concurrent request loops of the other partner (each waits for its answer before the next). */
const LANES = 4
const REST_SECONDS = 3

interface Options {
  port: number
  /** The own-gateway partner whose clock moves, and its token. */
  advancing: { partner: PartnerData; token: string }
  /** The partner whose requests are timed, one of its subscriptions, and its token. */
  other: { partner: PartnerData; token: string }
  log: (line?: string) => void
}

const figures = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
  }
}

const show = ({ n, p50, p99, max }: ReturnType<typeof figures>) =>
  `${n} requests, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`

export async function clockBench({ port, advancing, other, log }: Options) {
  const send = (token: string | null, path: string, body?: object) => call(port, path, token, body)
  const expectStatus = (answer: { status: number; text: string }, status: number, what: string) =>
    check(answer.status === status, `${what}: ${answer.status} ${answer.text}`)

  log(`Contracting ${PAID} subscriptions of partner ${advancing.partner.id}, installment 1 paid by card…`)
  const { customerIds, planIds, models } = advancing.partner
  for (let i = 0; i < PAID; i++) {
    const body = {
      plan_id: planIds[0],
      customer_id: customerIds[i % customerIds.length],
      model_id: models[0]?.id,
    }
    const contract = await send(advancing.token, '/subscriptions', body)
    expectStatus(contract, 201, 'contract')
    const card = { creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123', holder: 'BENCH' } }
    const payment = await send(advancing.token, `/subscriptions/${contract.json.id}/payment`, card)
    expectStatus(payment, 200, 'payment')
  }

  // The other partner's reads, from LANES loops, until `stop()`: a subscription, then /health.
  const timed = (stop: () => boolean) => {
    const latencies: number[] = []
    const lane = async () => {
      for (let k = 0; !stop(); k++) {
        const started = performance.now()
        const answer =
          k % 2
            ? await send(null, '/health')
            : await send(other.token, `/subscriptions/${other.partner.firstId}`)
        if (stop()) break
        expectStatus(answer, 200, 'the other partner')
        latencies.push(performance.now() - started)
      }
    }
    return Promise.all(Array.from({ length: LANES }, lane)).then(() => latencies)
  }

  log(
    `At rest: partner ${other.partner.id}'s GET /subscriptions/{id} and /health, ${LANES} loops, ${REST_SECONDS} s…`,
  )
  const restEnd = performance.now() + REST_SECONDS * 1000
  const rest = figures(await timed(() => performance.now() > restEnd))
  log(`  ${show(rest)}`)

  log(`During a ${DAYS}-day advance of partner ${advancing.partner.id}'s clock…`)
  let finished = false
  const started = performance.now()
  const advance = send(advancing.token, '/sandbox/clock/advance', { days: DAYS }).finally(() => {
    finished = true
  })
  const during = timed(() => finished)
  // A second advance of the same clock once the first has stored a day.
  let second: number | undefined
  while (!finished && second === undefined) {
    const clock = await send(advancing.token, '/sandbox/clock')
    if (Number(clock.json.advanced_by_seconds) > 0 && !finished) {
      second = (await send(advancing.token, '/sandbox/clock/advance', { days: 1 })).status
    }
    await sleep(20)
  }
  const moved = await advance
  const seconds = (performance.now() - started) / 1000
  expectStatus(moved, 200, 'the advance')
  const jobs = moved.json.jobs as { recurrence: { charged: number } }
  const busy = figures(await during)
  log(`  the advance: ${seconds.toFixed(1)} s, ${jobs.recurrence.charged} installments charged`)
  log(`  ${show(busy)}`)
  log('')
  const figure = `${busy.p99.toFixed(1)} ms ≤ ${TARGET_P99_MS} ms (at rest ${rest.p99.toFixed(1)} ms)`
  log(verdict(busy.p99 <= TARGET_P99_MS, `another partner's p99 during the advance ${figure}`))
  const answer = second ?? 'not sent (the advance ended first)'
  log(verdict(second === 409, `a second advance of the moving clock: ${answer} (409 expected)`))
}
