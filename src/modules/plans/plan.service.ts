import type { Trx } from '../../db/database.js'
import { ValidationError } from '../../shared/errors.js'
import { requirePartner } from '../partners/partner.service.js'
import type { PlanKind } from './plan.table.js'

export interface NewPlan {
  partnerId: number
  kind: PlanKind
  name: string
  coverages: string[]
  /** Subscription plans. */
  installments?: number
  monthlyRateBp?: number
  franchiseRateBp?: number
  /** Annual plans. */
  annualRateBp?: number
  usedFactorBp?: number
  isDefault?: boolean
}

function required<T>(value: T | undefined, key: string): T {
  if (value === undefined)
    throw ValidationError.field(key, `The ${key.replace(/_/g, ' ')} field is required.`)
  return value
}

/** Creates a plan; a new default annual plan takes the default from the previous one. */
export async function createPlan(trx: Trx, input: NewPlan, now: string) {
  await requirePartner(trx, input.partnerId)
  const name = input.name.trim()
  if (!name) throw ValidationError.field('name', 'The name field is required.')
  const subscription = input.kind === 'subscription'
  const installments = subscription ? required(input.installments, 'installments') : 1
  if (!Number.isInteger(installments) || installments < 1 || installments > 60) {
    throw ValidationError.field('installments', 'The installments field must be between 1 and 60.')
  }
  const values = {
    partner_id: input.partnerId,
    kind: input.kind,
    name,
    installments,
    monthly_rate_bp: subscription ? required(input.monthlyRateBp, 'monthly_rate') : null,
    franchise_rate_bp: subscription ? required(input.franchiseRateBp, 'franchise_rate') : null,
    annual_rate_bp: subscription ? null : required(input.annualRateBp, 'annual_rate'),
    used_factor_bp: subscription ? null : (input.usedFactorBp ?? 10_000),
    coverages: JSON.stringify(input.coverages.map((c) => c.trim()).filter(Boolean)),
    is_default: !subscription && (input.isDefault ?? false),
    active: true,
    created_at: now,
  }
  if (values.is_default) {
    await trx
      .updateTable('plans')
      .set({ is_default: false })
      .where('partner_id', '=', input.partnerId)
      .where('kind', '=', 'annual')
      .execute()
  }
  return trx.insertInto('plans').values(values).returningAll().executeTakeFirstOrThrow()
}
