import type { Db, Trx } from '../../db/database.js'
import type { PartnerScope } from '../../db/partner-scope.js'
import type { Payment } from '../../db/tables/annual-plan.js'
import type { PaidWith } from '../../db/tables/payment-code.js'
import { retryingTransaction } from '../../db/transaction.js'
import { type EventType, type RenderingContext, recordEvent } from '../events/event.service.js'
import { annualPlanResource } from './annual-plan.mapper.js'
import {
  type AnnualPlanRow,
  type CoverageLag,
  findAnnualPlanViewById,
  findCoverageLags,
  transitionAnnualPlan,
} from './annual-plan.repository.js'
import { ANNUAL_PLAN_FROM, annualPlanMayMove, statusAt } from './annual-plan.rules.js'

// Every status change of an annual plan (README, Annual plans) through transitionAnnualPlan, with
// the from-sets of annual-plan.rules.ts ANNUAL_PLAN_FROM, and the module's events (README, Events),
// each written in the transaction of its change with the plan as GET /annual-plans/{id} shows it
// at that instant.

type AnnualPlanEventType = Extract<EventType, `annual_plan.${string}`>

/** Writes an `annual_plan.*` event of the plan as it now is. */
export async function recordAnnualPlanEvent(
  trx: Trx,
  type: AnnualPlanEventType,
  id: number,
  now: string,
  { base, timeZone }: RenderingContext,
): Promise<void> {
  const view = await findAnnualPlanViewById(trx, id)
  if (!view) throw new Error(`annual plan ${id} not found for its event`)
  const object = annualPlanResource(view, { base, timeZone, now })
  await recordEvent(trx, { partnerId: view.partner_id, type, object, now })
}

/** The card a plan was paid with, when the own gateway charged it. */
export interface PaidCard {
  brand: string
  last4: string
  installments: number
}

/**
 * Moves a plan awaiting payment to `paid` with what `payment` writes (cover, policy number,
 * certificate code) and `annual_plan.paid`. Of concurrent confirmations exactly one moves it (and
 * its caller writes the ledger only then); the others get undefined and write nothing. Answers the
 * plan as paid.
 */
export async function markAnnualPlanPaid(
  trx: Trx,
  planId: number,
  payment: Payment,
  paidWith: PaidWith,
  rendering: RenderingContext,
  card?: PaidCard | null,
): Promise<AnnualPlanRow | undefined> {
  const paid = await transitionAnnualPlan(trx, planId, ANNUAL_PLAN_FROM.paid, 'paid', {
    paid_at: payment.paidAt,
    paid_with: paidWith,
    starts_at: payment.startsAt,
    ends_at: payment.endsAt,
    policy_number: payment.policyNumber,
    certificate_code: payment.certificateCode,
    locked_until: null,
    updated_at: payment.paidAt,
    ...(card && {
      payment_method: 'credit_card' as const,
      payment_installments: card.installments,
      card_brand: card.brand,
      card_last4: card.last4,
    }),
  })
  if (paid) await recordAnnualPlanEvent(trx, 'annual_plan.paid', planId, payment.paidAt, rendering)
  return paid
}

/**
 * Cancels the plan from any status but canceled, unless a card charge holds it or one awaits its
 * recording (whose approval would then find a canceled plan). Answers the row as the update left
 * it: on PostgreSQL the update waits for a concurrent payment to commit, so the refund is computed
 * from the payment it made; undefined when it did not move. The caller writes the cancellation's
 * confirmation, then `annual_plan.canceled` (recordAnnualPlanEvent), which shows it.
 */
export function cancelAnnualPlan(trx: Trx, planId: number, now: string): Promise<AnnualPlanRow | undefined> {
  return transitionAnnualPlan(
    trx,
    planId,
    ANNUAL_PLAN_FROM.canceled,
    'canceled',
    { updated_at: now },
    { unheldAt: now },
  )
}

/**
 * Stores the status the coverage clock gives a paid plan at `now`, with an event for each boundary
 * it crossed (`protected` at `starts_at`, `expired` at `ends_at`: both, in that order, when the
 * clock passed both unseen). The update is guarded by the status read, so of the worker and
 * readers racing, one writes the events, once. Answers what it changed.
 */
async function catchUp(trx: Trx, plan: CoverageLag, now: string, rendering: RenderingContext) {
  const target = statusAt(plan, now)
  if (target === plan.status || (target !== 'protected' && target !== 'expired')) return NOTHING
  if (!annualPlanMayMove(plan.status, target)) return NOTHING
  // `updated_at` is the boundary crossed; the status read is the guard.
  const boundary = target === 'expired' ? plan.ends_at : plan.starts_at
  if (boundary === null) return NOTHING
  if (!(await transitionAnnualPlan(trx, plan.id, [plan.status], target, { updated_at: boundary })))
    return NOTHING
  const started = plan.status === 'paid'
  if (started) await recordAnnualPlanEvent(trx, 'annual_plan.protected', plan.id, now, rendering)
  if (target === 'expired') await recordAnnualPlanEvent(trx, 'annual_plan.expired', plan.id, now, rendering)
  return { protected: started ? 1 : 0, expired: target === 'expired' ? 1 : 0 }
}

const NOTHING = { protected: 0, expired: 0 }

/**
 * The worker's coverage clock: every plan whose stored status lags the clock at `now` catches up,
 * with its events, a batch per transaction; only `scope`'s partners' plans when it is given.
 */
export async function advanceCoverageClock(
  db: Db,
  now: string,
  rendering: RenderingContext,
  { batchSize = 100, scope }: { batchSize?: number; scope?: PartnerScope } = {},
) {
  const total = { protected: 0, expired: 0 }
  for (;;) {
    const lags = await findCoverageLags(db, { now, limit: batchSize, scope })
    if (lags.length === 0) break
    const done = await retryingTransaction(db, async (trx) => {
      const batch = { ...NOTHING }
      for (const lag of lags) {
        const plan = await catchUp(trx, lag, now, rendering)
        batch.protected += plan.protected
        batch.expired += plan.expired
      }
      return batch
    })
    total.protected += done.protected
    total.expired += done.expired
    // Everything read was caught up by someone else meanwhile: read again only if this run moved on.
    if (done.protected + done.expired === 0 || lags.length < batchSize) break
  }
  return total
}

/**
 * A read is about to show these plans: those whose stored status lags the clock catch up first (the
 * events are due by the first read that shows the new status: README, Events). True when any did, so
 * the caller reads them again.
 */
export async function catchUpCoverageOf(
  db: Db,
  plans: CoverageLag[],
  now: string,
  rendering: RenderingContext,
): Promise<boolean> {
  const lagging = plans.filter((plan) => lagsAt(plan, now))
  if (lagging.length === 0) return false
  await retryingTransaction(db, async (trx) => {
    for (const plan of lagging) await catchUp(trx, plan, now, rendering)
  })
  return true
}

const lagsAt = (plan: CoverageLag, now: string) =>
  (plan.status === 'paid' || plan.status === 'protected') && statusAt(plan, now) !== plan.status
