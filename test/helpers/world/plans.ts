import type { Db } from '../../../src/db/database.js'
import { retryingTransaction } from '../../../src/db/transaction.js'
import { createPlan, type NewPlan } from '../../../src/modules/plans/plan.service.js'

// The plans the suites sell, with rates their expected amounts are worked out from by hand.

export type PlanTemplate = Omit<NewPlan, 'partnerId'>

export const COVERAGES = ['Roubo e furto qualificado', 'Quebra acidental', 'Danos por líquidos']

export const TOTAL_12X: PlanTemplate = {
  kind: 'subscription',
  name: 'Proteção Total 12x',
  installments: 12,
  monthlyRateBp: 120,
  franchiseRateBp: 1500,
  coverages: COVERAGES,
}

export const ESSENCIAL_24X: PlanTemplate = {
  kind: 'subscription',
  name: 'Proteção Essencial 24x',
  installments: 24,
  monthlyRateBp: 100,
  franchiseRateBp: 2000,
  coverages: COVERAGES.slice(0, 2),
}

export const ANNUAL: PlanTemplate = {
  kind: 'annual',
  name: 'Proteção Anual',
  annualRateBp: 1100,
  usedFactorBp: 11_500,
  coverages: COVERAGES,
  isDefault: true,
}

export type SeededPlan = Awaited<ReturnType<typeof createPlan>>

/** The partner's plans from their templates, created in order in one transaction at `now`. */
export async function seedPlans<const T extends readonly PlanTemplate[]>(
  db: Db,
  partnerId: number,
  templates: T,
  now = '2026-11-21T12:00:00.000Z',
): Promise<{ -readonly [K in keyof T]: SeededPlan }> {
  return retryingTransaction(db, async (trx) => {
    const plans: SeededPlan[] = []
    for (const template of templates) plans.push(await createPlan(trx, { ...template, partnerId }, now))
    return plans as { -readonly [K in keyof T]: SeededPlan }
  })
}

/** One plan from its template: `seedPlan(db, partner.id, TOTAL_12X)`. */
export async function seedPlan(db: Db, partnerId: number, template: PlanTemplate, now?: string) {
  const [plan] = await seedPlans(db, partnerId, [template], now)
  return plan
}

/**
 * A plan written with the columns every schema version has, for the migration tests that seed a
 * database at an older version (the service writes columns later migrations add).
 */
export async function seedOlderPlan(
  db: Db,
  partnerId: number,
  template: PlanTemplate,
  now = '2026-11-21T12:00:00.000Z',
) {
  const subscription = template.kind === 'subscription'
  return retryingTransaction(db, (trx) =>
    trx
      .insertInto('plans')
      .values({
        partner_id: partnerId,
        kind: template.kind,
        name: template.name,
        installments: template.installments ?? 1,
        monthly_rate_bp: template.monthlyRateBp ?? null,
        franchise_rate_bp: template.franchiseRateBp ?? null,
        annual_rate_bp: template.annualRateBp ?? null,
        used_factor_bp: subscription ? null : (template.usedFactorBp ?? 10_000),
        coverages: JSON.stringify(template.coverages),
        is_default: template.isDefault ?? false,
        active: true,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
}
