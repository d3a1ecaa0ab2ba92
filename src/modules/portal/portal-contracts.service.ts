import type { Db, Reader } from '../../db/database.js'
import type { CoverageType } from '../../db/tables/plan.js'
import { NotFoundError } from '../../shared/errors.js'
import {
  ANNUAL_PLAN_STATUS_LABELS,
  INSTALLMENT_STATUS_LABELS,
  PERIL_LABELS,
  SUBSCRIPTION_STATUS_LABELS,
} from '../../shared/labels.js'
import { centsToAmount } from '../../shared/money.js'
import { formatDate, formatTimestamp } from '../../shared/time.js'
import { statusAt as annualPlanStatusAt } from '../annual-plans/annual-plan.rules.js'
import { isOpen } from '../claims/claim.rules.js'
import { statusAt as subscriptionStatusAt } from '../subscriptions/subscription.rules.js'
import { nextStep, nextStepText, payableNow, payingOptions, withinWithdrawal } from './portal.rules.js'
import {
  annualPlansOfDocument,
  claimsOfDocument,
  contractOfDocument,
  installmentsOf,
  subscriptionsOfDocument,
} from './portal-contracts.repository.js'
import type { PortalInsured } from './portal-session.service.js'

export type ContractKind = 'subscription' | 'annual_plan'

/** The partner's time (its sandbox clock in test, docs/decisions.md Sandbox test clock), as an ISO instant. */
export const partnerNow = (now: Date, offsetSeconds: number, sandboxClocks: boolean): string =>
  new Date(now.getTime() + (sandboxClocks ? offsetSeconds * 1000 : 0)).toISOString()

export interface PortalMoment {
  now: Date
  timeZone: string
  sandboxClocks: boolean
}

const perils = (json: string) =>
  (JSON.parse(json) as CoverageType[]).map((code) => ({ code, label: PERIL_LABELS[code] }))

const date = (instant: string | null, timeZone: string) =>
  instant === null ? null : formatDate(instant, timeZone)

/**
 * Minhas proteções: every contract of the insured's document under every partner, newest first,
 * each read at its partner's clock, with its installments and what to do next.
 */
export async function listPortalContracts(db: Db, insured: PortalInsured, moment: PortalMoment) {
  const { timeZone } = moment
  const [subscriptions, annualPlans, claims] = await Promise.all([
    subscriptionsOfDocument(db, insured.document),
    annualPlansOfDocument(db, insured.document),
    claimsOfDocument(db, insured.document),
  ])
  const installments = await installmentsOf(
    db,
    subscriptions.map((s) => s.id),
  )
  const openClaimOf = (kind: ContractKind, id: number) =>
    claims.find(
      (c) =>
        isOpen(c.status) && (kind === 'subscription' ? c.subscription_id === id : c.annual_plan_id === id),
    )?.id ?? null

  const subscriptionViews = subscriptions.map((s) => {
    const now = partnerNow(moment.now, s.clock_offset_seconds, moment.sandboxClocks)
    const today = formatDate(now, timeZone)
    const status = subscriptionStatusAt(s, now, timeZone)
    const own = installments.filter((i) => i.subscription_id === s.id)
    const firstPaid = own.find((i) => i.number === 1)?.paid_at ?? null
    const overdue = own.some((i) => (i.status === 'pending' || i.status === 'refused') && i.due_date < today)
    const openClaim = openClaimOf('subscription', s.id)
    const stage = status === 'pago' ? 'in_force' : status === 'pending' ? 'unpaid' : 'ended'
    const step = nextStep({ stage, overdue, openClaim: openClaim !== null })
    const ownGateway = s.partner_gateway === 'own'
    return {
      kind: 'subscription' as const,
      id: s.id,
      policy_number: s.policy_number,
      partner: { name: s.partner_name },
      store: s.store_name,
      plan: { name: s.plan_name, perils: perils(s.coverage_types) },
      device: { name: s.model_name, serial_number: s.serial_number },
      status,
      status_label: SUBSCRIPTION_STATUS_LABELS[status],
      coverage: { starts_on: date(firstPaid, timeZone), ends_on: s.ends_on },
      lmi: centsToAmount(s.lmi),
      premium: centsToAmount(s.monthly_premium),
      installments: own.map((i) => ({
        id: i.id,
        number: i.number,
        amount: centsToAmount(i.amount),
        due_date: i.due_date,
        status: i.status,
        status_label: INSTALLMENT_STATUS_LABELS[i.status],
        overdue: (i.status === 'pending' || i.status === 'refused') && i.due_date < today,
        paid_at: i.paid_at === null ? null : formatTimestamp(i.paid_at, timeZone),
        payable: ownGateway && payableNow(status, i, today),
      })),
      paying: payingOptions(ownGateway, { kind: 'subscription', status, installments: own, today }),
      certificate_url:
        s.certificate_code && status === 'pago' ? `/api/contracts/subscription/${s.id}/certificate` : null,
      open_claim_id: openClaim,
      can_claim: stage === 'in_force' && openClaim === null,
      can_withdraw: (status === 'pago' || status === 'pending') && withinWithdrawal(s.created_at, now),
      next_step: step,
      next_step_text: nextStepText(step, ownGateway),
      contracted_at: formatTimestamp(s.created_at, timeZone),
    }
  })

  const annualViews = annualPlans.map((a) => {
    const now = partnerNow(moment.now, a.clock_offset_seconds, moment.sandboxClocks)
    const status = annualPlanStatusAt(a, now)
    const openClaim = openClaimOf('annual_plan', a.id)
    const stage =
      status === 'protected'
        ? 'in_force'
        : status === 'paid'
          ? 'waiting'
          : status === 'awaiting_payment'
            ? 'unpaid'
            : 'ended'
    const step = nextStep({ stage, overdue: false, openClaim: openClaim !== null })
    return {
      kind: 'annual_plan' as const,
      id: a.id,
      policy_number: a.policy_number,
      partner: { name: a.partner_name },
      store: a.store_name,
      plan: { name: a.plan_name, perils: perils(a.coverage_types) },
      device: { name: a.model_name, serial_number: a.imei },
      status,
      status_label: ANNUAL_PLAN_STATUS_LABELS[status],
      coverage: { starts_on: date(a.starts_at, timeZone), ends_on: date(a.ends_at, timeZone) },
      lmi: centsToAmount(a.lmi),
      premium: centsToAmount(a.premium),
      installments: [],
      paying: payingOptions(a.partner_gateway === 'own', { kind: 'annual_plan', status }),
      certificate_url:
        a.certificate_code && (status === 'paid' || status === 'protected')
          ? `/api/contracts/annual_plan/${a.id}/certificate`
          : null,
      open_claim_id: openClaim,
      can_claim: stage === 'in_force' && openClaim === null,
      can_withdraw: (status === 'paid' || status === 'protected') && withinWithdrawal(a.created_at, now),
      next_step: step,
      next_step_text: nextStepText(step, a.partner_gateway === 'own'),
      contracted_at: formatTimestamp(a.created_at, timeZone),
    }
  })
  return { data: [...subscriptionViews, ...annualViews] }
}

/** A contract of the insured's document (its partner and customer), or 404 when it is not theirs. */
export async function requirePortalContract(
  db: Reader,
  insured: PortalInsured,
  kind: ContractKind,
  id: number,
) {
  const contract = await contractOfDocument(db, insured.document, kind, id)
  if (!contract) throw new NotFoundError(kind === 'subscription' ? 'Subscription' : 'Annual plan')
  return contract
}
