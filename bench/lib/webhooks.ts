import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Db } from '../../src/db/database.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { recordEvent } from '../../src/modules/events/event.service.js'
import { createEndpoint } from '../../src/modules/webhooks/webhook-endpoint.service.js'
import { type Bench, f, log, percentiles, verdict } from './load.js'
import { startProcess, stop, until } from './proc.js'

// `--webhooks` (issue 24): N pending events delivered by one `amparo worker` (dist/) to a receiver
// in this process, then isolation: one partner's endpoint hangs, another's events arrive one by one.

const TARGET_RATE = 500
const TARGET_P99_MS = 1000
const HANGING = 100
const SPACED = { count: 50, ms: 100 }

/** A local receiver: `/ok` answers 200 at once (receipt time by webhook-id), `/hang` never answers. */
export async function startReceiver() {
  const received = new Map<string, number>()
  const hanging = new Set<ServerResponse>()
  const server = createServer((request, response) => {
    request.resume()
    if (request.url === '/hang') hanging.add(response)
    else {
      received.set(String(request.headers['webhook-id']), performance.now())
      response.end()
    }
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return { url, received, hanging, close }
}

export async function addEndpoint(db: Db, partnerId: number, url: string) {
  const now = new Date().toISOString()
  return retryingTransaction(db, (trx) => createEndpoint(trx, partnerId, { url, events: ['*'] }, now))
}

/** `count` events of the partner, committed in transactions of 500; answers their ids. */
async function addEvents(db: Db, partnerId: number, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i += 500)
    await retryingTransaction(db, async (trx) => {
      for (let n = i; n < Math.min(count, i + 500); n++) {
        const object = { id: n, object: 'subscription', status: 'pending' }
        const now = new Date().toISOString()
        ids.push(await recordEvent(trx, { partnerId, type: 'subscription.created', object, now }))
      }
    })
  return ids
}

export async function webhooksBench({ cli, env, logFile }: Bench, db: Db, count: number) {
  const receiver = await startReceiver()
  const [a, b] = await db.selectFrom('partners').select('id').orderBy('id').limit(2).execute()
  if (!a || !b) throw new Error('the demo should have two partners')
  const endpointA = await addEndpoint(db, a.id, `${receiver.url}/ok`)
  log(`Seeding ${count} events for partner ${a.id} (one endpoint)…`)
  const ids = await addEvents(db, a.id, count)
  log('One `amparo worker` delivering them…')
  const started = performance.now()
  const worker = startProcess([cli, 'worker'], env, logFile)
  await until(() => ids.every((id) => receiver.received.has(id)), 300, 'delivery')
  const seconds = (Math.max(...receiver.received.values()) - started) / 1000
  const rate = count / seconds
  log(`  ${count} delivered in ${f(seconds, 1)} s (spawn to the last receipt): ${f(rate)} a second`)
  const rated = verdict(rate >= TARGET_RATE, `${f(rate)} deliveries/s ≥ ${TARGET_RATE}`)

  const spaced = `${SPACED.count} events ${SPACED.ms} ms apart`
  log(`Isolation: partner ${a.id}'s endpoint hangs (${HANGING} deliveries), partner ${b.id} gets ${spaced}…`)
  const hang = { url: `${receiver.url}/hang` }
  await retryingTransaction(db, (trx) =>
    trx.updateTable('webhook_endpoints').set(hang).where('id', '=', endpointA.id).execute(),
  )
  await addEvents(db, a.id, HANGING)
  await until(() => receiver.hanging.size > 0, 10, 'the hanging endpoint')
  await addEndpoint(db, b.id, `${receiver.url}/ok`)
  const committed = new Map<string, number>()
  for (let i = 0; i < SPACED.count; i++) {
    const [id] = await addEvents(db, b.id, 1)
    committed.set(id as string, performance.now())
    await sleep(SPACED.ms)
  }
  const delivered = () => [...committed.keys()].every((id) => receiver.received.has(id))
  await until(delivered, 60, "partner B's delivery")
  const lags = percentiles([...committed].map(([id, at]) => (receiver.received.get(id) as number) - at))
  const lag = `p50 ${f(lags.p50)} ms, p99 ${f(lags.p99)} ms, max ${f(lags.max)} ms`
  log(`  B's commit→receipt lag: ${lag}; ${receiver.hanging.size} requests hanging at A's endpoint\n`)
  log(rated)
  const beside = `p99 lag ${f(lags.p99)} ms ≤ ${TARGET_P99_MS} ms beside a hanging endpoint`
  log(verdict(lags.p99 <= TARGET_P99_MS, beside))
  // The hanging attempts end at once (the worker lets attempts in flight finish before it exits).
  await receiver.close()
  await stop(worker)
}
