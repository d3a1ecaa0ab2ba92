import type { Db } from '../../db/database.js'
import { ValidationError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import { deadlineBounds } from '../claims/claim-deadline.rules.js'
import {
  activeProtections,
  claimsByMonth,
  claimsOwedByPlan,
  claimsPaidByPlan,
  collectedByPlan,
  namesOf,
  openClaimFigures,
  premiumsByMonth,
} from './dashboard.repository.js'
import { asCents, byMonth, hourOf, lossRatio, monthSpans, monthsOf, periodOf } from './dashboard.rules.js'

// GET /api/dashboard (README, Operator console: the operator API behind the screens).

const NO_CLAIMS = { opened: 0, approved: 0, denied: 0, settled: 0 }

const planKey = (partnerId: number, planId: number | null) => `${partnerId}:${planId ?? ''}`

export async function dashboard(
  db: Db,
  query: { from?: string; to?: string },
  { now, timeZone }: { now: string; timeZone: string },
) {
  const period = periodOf(query, now, timeZone)
  if ('error' in period) throw ValidationError.field(period.field, period.error)
  const months = monthsOf(period.from, period.to)
  const spans = monthSpans(period.from, period.to, timeZone)
  const hours = spans.map((span) => ({ month: span.month, start: hourOf(span.start), end: hourOf(span.end) }))
  const bounds = { start: spans[0]?.start ?? now, end: spans[spans.length - 1]?.end ?? now }
  const [premiumSums, byPlan, paid, owed, claims, active, open] = await Promise.all([
    premiumsByMonth(db, hours),
    collectedByPlan(db, { start: hours[0]?.start ?? '', end: hours[hours.length - 1]?.end ?? '' }),
    claimsPaidByPlan(db, bounds),
    claimsOwedByPlan(db, bounds),
    claimsByMonth(db, spans),
    activeProtections(db, { now, today: formatDate(now, timeZone) }),
    openClaimFigures(db, deadlineBounds(now, timeZone)),
  ])

  const premiums = byMonth(
    months,
    premiumSums.map((r) => ({
      month: r.month,
      written_cents: asCents(r.written),
      collected_cents: asCents(r.collected),
    })),
    { written_cents: 0, collected_cents: 0 },
  )
  const claimMonths = byMonth(
    months,
    claims.map((row) => ({ ...NO_CLAIMS, month: row.month, [row.what]: Number(row.count) })),
    NO_CLAIMS,
  )

  const plans = new Map<
    string,
    { partnerId: number; planId: number | null; collected: number; paid: number; owed: number }
  >()
  const entry = (partnerId: number, planId: number | null) => {
    const key = planKey(partnerId, planId)
    const found = plans.get(key) ?? { partnerId, planId, collected: 0, paid: 0, owed: 0 }
    plans.set(key, found)
    return found
  }
  for (const row of byPlan) {
    const cents = asCents(row.cents)
    if (cents !== 0) entry(row.partner_id, row.plan_id === 0 ? null : row.plan_id).collected += cents
  }
  for (const row of paid) entry(row.partner_id, row.plan_id).paid += asCents(row.cents)
  for (const row of owed) entry(row.partner_id, row.plan_id).owed += asCents(row.cents)
  const names = await namesOf(
    db,
    [...new Set([...plans.values()].map((p) => p.partnerId))],
    [...plans.values()].flatMap((p) => (p.planId === null ? [] : [p.planId])),
  )
  const lossRatios = [...plans.values()]
    .map((p) => ({
      partner_id: p.partnerId,
      partner_name: names.partners.get(p.partnerId) ?? '',
      plan_id: p.planId,
      plan_name: p.planId === null ? null : (names.plans.get(p.planId) ?? ''),
      premiums_collected_cents: p.collected,
      claims_paid_cents: p.paid,
      ratio: lossRatio(p.paid, p.collected),
      claims_owed_cents: p.owed,
      incurred_ratio: lossRatio(p.paid + p.owed, p.collected),
    }))
    .sort((a, b) => a.partner_id - b.partner_id || (a.plan_id ?? 0) - (b.plan_id ?? 0))

  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
  const totals = {
    written_cents: sum(premiums.map((m) => m.written_cents)),
    collected_cents: sum(premiums.map((m) => m.collected_cents)),
    claims_paid_cents: sum(lossRatios.map((r) => r.claims_paid_cents)),
    claims_owed_cents: sum(lossRatios.map((r) => r.claims_owed_cents)),
  }
  return {
    period: { from: period.from, to: period.to },
    premiums,
    active_protections: { subscriptions: active.subscriptions, annual_plans: active.annualPlans },
    claims: claimMonths,
    open_claims: {
      owed: { count: open.owed, payable_cents: open.owedCents },
      overdue: open.overdue,
      due_this_week: open.dueThisWeek,
    },
    loss_ratio: lossRatios,
    totals: {
      ...totals,
      ratio: lossRatio(totals.claims_paid_cents, totals.collected_cents),
      incurred_ratio: lossRatio(totals.claims_paid_cents + totals.claims_owed_cents, totals.collected_cents),
    },
  }
}
