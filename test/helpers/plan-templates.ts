import type { NewPlan } from '../../src/modules/plans/plan.service.js'

// The plans the quotation and subscription suites sell, with rates their expected amounts are
// worked out from by hand.

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
