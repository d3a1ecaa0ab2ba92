import { setTimeout as sleep } from 'node:timers/promises'
import {
  type ClaimedDelivery,
  claimDue,
  dispatchEvents,
  type Outcome,
  sendAttempt,
  settleAttempts,
} from '../modules/webhooks/webhook-delivery.service.js'
import type { AttemptResult } from '../modules/webhooks/webhook-sender.js'
import { deliveryAgents, type Environment } from '../modules/webhooks/webhook-url.js'
import { type JobDeps, silentLog } from './job.js'

/** How often the delivery loop looks for new events: the first attempt starts within 2 s of the commit. */
export const WEBHOOK_POLL_MS = 500
const DISPATCH_EVERY_MS = 200
/**
 * After an attempt ends, how long to let others end before claiming again: one claim then fills
 * several lanes (a claim costs a few milliseconds of database work; one per attempt capped the
 * rate at ≈ 150 a second).
 */
const COALESCE_MS = 10
/** Outcomes written in one transaction at most. */
const SETTLE_BATCH = 200
/** Attempts in flight at once in one worker. */
export const WEBHOOK_CONCURRENCY = 100
/**
 * Attempts in flight at once to one endpoint, over all workers: a hanging one holds no more lanes
 * (half a worker's). With one busy endpoint the rate is this many a claim cycle (claim, POST,
 * settle): 20 capped it at ≈ 150 a second on PostgreSQL.
 */
export const WEBHOOK_PER_ENDPOINT = 50
/** A worker's hold on a delivery: longer than an attempt lasts (10 s), so no attempt is made twice at once. */
export const WEBHOOK_LEASE_SECONDS = 30

export interface WebhookDeps extends JobDeps {
  env: Environment
  /**
   * Attempts in flight at once in this worker. Not JobDeps' `concurrency` (the recurrence's gateway
   * calls, 20 by default): shared, one hanging endpoint could take every lane of the worker.
   */
  lanes?: number
  perEndpoint?: number
  leaseSeconds?: number
  /** An attempt's deadline (tests shorten it). */
  timeoutMs?: number
}

export interface WebhookResult {
  dispatched: number
  succeeded: number
  retried: number
  failed: number
  disabled: number
  /** Outcomes dropped because the lease had run out and another worker took the delivery. */
  lost: number
  errors: number
}

/**
 * Webhook delivery: dispatches new events into deliveries, claims due ones with a lease and
 * attempts them, at most `lanes` at once. `once` ends when nothing is due and nothing is in
 * flight; `run` loops until its signal aborts, then lets the attempts in flight finish.
 */
export class WebhookDeliverer {
  readonly result: WebhookResult = {
    dispatched: 0,
    succeeded: 0,
    retried: 0,
    failed: 0,
    disabled: 0,
    lost: 0,
    errors: 0,
  }
  private readonly inFlight = new Set<Promise<void>>()
  private dispatchedAt = 0
  private readonly agents
  private readonly concurrency: number
  /** Set when an attempt ends: the loop looks for work again at once instead of waiting the poll. */
  private woken = false
  private resolveWait: () => void = () => {}
  /** Attempts that ended, waiting to be settled together (see `settleAttempts`). */
  private ended: {
    delivery: ClaimedDelivery
    result: AttemptResult
    done: (o: Outcome) => void
    fail: (e: unknown) => void
  }[] = []
  private settling: Promise<void> | null = null

  constructor(private readonly deps: WebhookDeps) {
    this.concurrency = deps.lanes ?? WEBHOOK_CONCURRENCY
    this.agents = deliveryAgents(deps.env)
  }

  /** One pass: dispatch, then claim what the free lanes can take. Answers whether every lane was filled. */
  async tick(): Promise<boolean> {
    const { db, clock } = this.deps
    // Each ended attempt triggers a tick; new events need looking for only a few times a second.
    if (Date.now() - this.dispatchedAt >= DISPATCH_EVERY_MS) {
      this.dispatchedAt = Date.now()
      this.result.dispatched += await dispatchEvents(db, clock.now().toISOString())
    }
    const free = this.concurrency - this.inFlight.size
    if (free <= 0) return false
    const claimed = await claimDue(db, {
      now: clock.now(),
      limit: free,
      perEndpoint: this.deps.perEndpoint ?? WEBHOOK_PER_ENDPOINT,
      leaseSeconds: this.deps.leaseSeconds ?? WEBHOOK_LEASE_SECONDS,
    })
    for (const delivery of claimed) this.start(delivery)
    return claimed.length === free
  }

  async once(): Promise<WebhookResult> {
    for (;;) {
      const full = await this.tick()
      if (full) continue
      if (this.inFlight.size === 0) break
      await Promise.race(this.inFlight)
      await sleep(COALESCE_MS)
    }
    return this.result
  }

  async run({ signal, pollMs = WEBHOOK_POLL_MS }: { signal: AbortSignal; pollMs?: number }): Promise<void> {
    const log = this.deps.log ?? silentLog
    while (!signal.aborted) {
      this.woken = false
      let full = false
      try {
        full = await this.tick()
      } catch (error) {
        log.error({ err: error }, 'webhook round failed')
      }
      if (full) continue
      if (this.woken) {
        await sleep(COALESCE_MS)
        continue
      }
      // Until the poll, or sooner when an attempt ends (its lane, or its endpoint's, is free again).
      const woken = new Promise<void>((resolve) => {
        this.resolveWait = resolve
      })
      await Promise.race([sleep(pollMs, undefined, { signal }).catch(() => {}), woken])
    }
    await Promise.all(this.inFlight)
  }

  close(): void {
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  private start(delivery: ClaimedDelivery): void {
    const { db, clock, env, timeZone, timeoutMs } = this.deps
    const log = this.deps.log ?? silentLog
    const attempt = sendAttempt(
      { db, env, timeZone, agents: this.agents, now: () => clock.now(), timeoutMs },
      delivery,
    )
      .then((result) => this.settle(delivery, result))
      .then((outcome: Outcome) => {
        this.count(outcome)
        const details = {
          delivery_id: delivery.id,
          endpoint_id: delivery.endpoint_id,
          event_id: delivery.public_id,
        }
        if (outcome === 'disabled') log.warn(details, 'webhook endpoint disabled')
        else log.debug({ ...details, outcome }, 'webhook attempt')
      })
      .catch((error: unknown) => {
        // The lease runs out and another round tries again.
        this.result.errors += 1
        log.error({ err: error, delivery_id: delivery.id }, 'webhook attempt failed')
      })
      .finally(() => {
        this.inFlight.delete(attempt)
        this.woken = true
        this.resolveWait()
      })
    this.inFlight.add(attempt)
  }

  /** Queues an ended attempt; the answers that arrive together are written in one transaction. */
  private settle(delivery: ClaimedDelivery, result: AttemptResult): Promise<Outcome> {
    return new Promise((done, fail) => {
      this.ended.push({ delivery, result, done, fail })
      this.settling ??= this.settleEnded()
    })
  }

  private async settleEnded(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve))
    while (this.ended.length > 0) {
      const batch = this.ended.splice(0, SETTLE_BATCH)
      try {
        const outcomes = await settleAttempts(this.deps.db, batch, this.deps.clock.now())
        for (const [i, item] of batch.entries()) item.done(outcomes[i] as Outcome)
      } catch (error) {
        for (const item of batch) item.fail(error)
      }
    }
    this.settling = null
  }

  private count(outcome: Outcome): void {
    const key = outcome === 'retry' ? 'retried' : outcome
    this.result[key] += 1
  }
}

/** Delivers everything due now, once (tests, `amparo worker --once`). */
export async function deliverWebhooksOnce(deps: WebhookDeps): Promise<WebhookResult> {
  const deliverer = new WebhookDeliverer(deps)
  try {
    return await deliverer.once()
  } finally {
    deliverer.close()
  }
}

/** The delivery loop of `amparo worker` and of `amparo serve` on SQLite, until `signal` aborts. */
export async function runWebhookLoop(deps: WebhookDeps, options: { signal: AbortSignal; pollMs?: number }) {
  const deliverer = new WebhookDeliverer(deps)
  try {
    await deliverer.run(options)
  } finally {
    deliverer.close()
  }
}
