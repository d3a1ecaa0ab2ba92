import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { EVENT_RETENTION_DAYS, renderEvent, sequenceEvents } from '../events/event.service.js'
import { failingTooLong, nextAttemptAt, receives, signingSecrets } from './webhook.rules.js'
import {
  type ClaimedDelivery,
  claimDeliveries,
  deleteDeliveriesBefore,
  disableEndpoint,
  dispatchWindow,
  endpointAnswered,
  endpointFailed,
  findClaimable,
  insertDeliveryRows,
  settleDelivery,
  settleSucceeded,
} from './webhook-delivery.repository.js'
import { pingTarget } from './webhook-endpoint.service.js'
import { type AttemptResult, sendWebhook } from './webhook-sender.js'
import { type Environment, refusedShape } from './webhook-url.js'

/** A delivery the worker has claimed and now sends. */
export type { ClaimedDelivery }

const DISPATCH_WINDOW = 1000

/**
 * Turns the events numbered since the last dispatch into deliveries, one per enabled endpoint that
 * receives each. Only numbered events: on PostgreSQL the sequencer numbers committed events first,
 * so a delivery never announces an event the feed does not show yet. Answers the deliveries made.
 */
export async function dispatchEvents(db: Db, now: string): Promise<number> {
  await sequenceEvents(db)
  let made = 0
  for (;;) {
    const passed = await retryingTransaction(db, (trx) =>
      dispatchWindow(trx, DISPATCH_WINDOW, async (pairs) => {
        const rows = pairs
          .filter((pair) =>
            receives(
              { id: pair.endpoint_id, events: JSON.parse(pair.subscribed) },
              {
                type: pair.type,
                endpointId: pair.ping_data ? pingTarget({ type: 'ping', data: pair.ping_data }) : undefined,
              },
            ),
          )
          .map((pair) => ({
            endpoint_id: pair.endpoint_id,
            event_id: pair.event_id,
            event_public_id: pair.public_id,
            event_type: pair.type,
            status: 'pending' as const,
            next_attempt_at: now,
            created_at: now,
          }))
        await insertDeliveryRows(trx, rows)
        made += rows.length
      }),
    )
    if (passed < DISPATCH_WINDOW) return made
  }
}

/** Claims up to `limit` due deliveries for `leaseSeconds` (longer than an attempt can last). */
export async function claimDue(
  db: Db,
  {
    now,
    limit,
    perEndpoint,
    leaseSeconds,
  }: { now: Date; limit: number; perEndpoint: number; leaseSeconds: number },
): Promise<ClaimedDelivery[]> {
  const at = now.toISOString()
  const ids = await findClaimable(db, { now: at, limit, perEndpoint })
  if (ids.length === 0) return []
  const until = new Date(now.getTime() + leaseSeconds * 1000).toISOString()
  return retryingTransaction(db, (trx) => claimDeliveries(trx, ids, at, until))
}

export type Outcome = 'succeeded' | 'retry' | 'failed' | 'disabled' | 'lost'

export interface AttemptDeps {
  db: Db
  env: Environment
  timeZone: string
  agents: { http: import('node:http').Agent; https: import('node:https').Agent }
  /** The schedule's time (retries, 3-day rule); signatures carry the real time of the attempt. */
  now: () => Date
  timeoutMs?: number
}

/** Makes one claimed attempt over HTTP; its outcome is written by `settleAttempts`. */
export async function sendAttempt(deps: AttemptDeps, delivery: ClaimedDelivery): Promise<AttemptResult> {
  const body = JSON.stringify(renderEvent(delivery, deps.timeZone))
  // The address rules again at every attempt: the agents check the resolved address, this the scheme.
  const refused = refusedShape(delivery.url, deps.env)
  if (refused) return { ok: false, status: null, error: refused }
  return sendWebhook({
    url: delivery.url,
    id: delivery.public_id,
    body,
    secrets: signingSecrets(delivery, deps.now()),
    timestamp: new Date(),
    agents: deps.agents,
    timeoutMs: deps.timeoutMs,
  })
}

/** Makes one claimed attempt and writes its outcome. */
export async function attemptDelivery(deps: AttemptDeps, delivery: ClaimedDelivery): Promise<Outcome> {
  const result = await sendAttempt(deps, delivery)
  const [outcome] = await settleAttempts(deps.db, [{ delivery, result }], deps.now())
  return outcome as Outcome
}

/**
 * Writes the outcomes of attempts that ended together in one transaction: one commit for many
 * deliveries (a transaction each capped a worker at ≈ 150 deliveries a second on SQLite).
 */
export async function settleAttempts(
  db: Db,
  attempts: { delivery: ClaimedDelivery; result: AttemptResult }[],
  now: Date,
): Promise<Outcome[]> {
  return retryingTransaction(db, async (trx) => {
    const outcomes = new Map<ClaimedDelivery, Outcome>()
    // Successes in one statement per lease and status (all of a claim share its lease), then each
    // endpoint answered once; the failures (rare, and each with its schedule) one by one.
    const groups = new Map<string, ClaimedDelivery[]>()
    for (const { delivery, result } of attempts) {
      if (!result.ok) continue
      const key = `${delivery.until} ${result.status}`
      groups.set(key, [...(groups.get(key) ?? []), delivery])
    }
    const answered = new Set<number>()
    for (const [key, deliveries] of groups) {
      const [until, status] = key.split(' ') as [string, string]
      const ids = deliveries.map((delivery) => delivery.id)
      const at = now.toISOString()
      const kept = new Set(await settleSucceeded(trx, ids, until, { status: Number(status), at }))
      for (const delivery of deliveries) {
        outcomes.set(delivery, kept.has(delivery.id) ? 'succeeded' : 'lost')
        if (kept.has(delivery.id)) answered.add(delivery.endpoint_id)
      }
    }
    for (const endpointId of answered) await endpointAnswered(trx, endpointId)
    for (const { delivery, result } of attempts) {
      if (!result.ok) outcomes.set(delivery, await settleFailure(trx, delivery, result, now))
    }
    return attempts.map(({ delivery }) => outcomes.get(delivery) as Outcome)
  })
}

/**
 * A failed attempt (a 2xx is settled in `settleAttempts`). A 410: failed, and the endpoint
 * disabled. Anything else: retried on the schedule, failed after the last retry; the endpoint is
 * disabled after 3 days of only failures.
 */
async function settleFailure(
  trx: Trx,
  delivery: ClaimedDelivery,
  result: AttemptResult,
  now: Date,
): Promise<Outcome> {
  const at = now.toISOString()
  const base = { last_status_code: result.status, last_error: result.error }
  const gone = result.status === 410
  const next = gone ? null : nextAttemptAt(delivery.attempts, now)
  const kept = await settleDelivery(trx, delivery, {
    ...base,
    status: next ? 'pending' : 'failed',
    next_attempt_at: next?.toISOString() ?? null,
    delivered_at: null,
  })
  if (!kept) return 'lost'
  const failingSince = await endpointFailed(trx, delivery.endpoint_id, at)
  if (gone || failingTooLong(failingSince, now)) {
    await disableEndpoint(trx, delivery.endpoint_id, at)
    return 'disabled'
  }
  return next ? 'retry' : 'failed'
}

/** The worker's purge: deliveries kept as long as the events. */
export async function purgeDeliveries(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString()
  return retryingTransaction(db, (trx) => deleteDeliveriesBefore(trx, cutoff))
}
