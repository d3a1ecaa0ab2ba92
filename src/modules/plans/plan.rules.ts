import { PERIL_LABELS } from '../../shared/labels.js'

// The plan's typed coverage (README, Claims): the perils a claim may name, their pt-BR labels, and
// the types a plan's free-text `coverages` name.

import { COVERAGE_TYPES, type CoverageType } from '../../db/tables/plan.js'

export const COVERAGE_TYPE_LABELS: Record<CoverageType, string> = PERIL_LABELS

/** Defaults of a plan's claim terms. */
export const DEFAULT_CLAIM_NOTICE_DAYS = 30
export const DEFAULT_MAX_CLAIMS_PER_YEAR = 2

// The word (without accents, lowercase) that names each type in a coverage's text.
const WORDS: [string, CoverageType][] = [
  ['roubo', 'robbery'],
  ['furto', 'qualified_theft'],
  ['quebra', 'accidental_damage'],
  ['liquido', 'liquid_damage'],
]

const plain = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

/**
 * The coverage types a plan's `coverages` strings name, in the canonical order: "Roubo e furto
 * qualificado" names `robbery` and `qualified_theft`, "Danos por líquidos" `liquid_damage`. A string
 * naming none adds none.
 */
export function coverageTypesNamedBy(coverages: readonly string[]): CoverageType[] {
  const text = plain(coverages.join(' | '))
  const named = new Set(WORDS.filter(([word]) => text.includes(word)).map(([, type]) => type))
  return COVERAGE_TYPES.filter((type) => named.has(type))
}

/** The types in the canonical order, each once. */
export function orderedCoverageTypes(types: readonly CoverageType[]): CoverageType[] {
  return COVERAGE_TYPES.filter((type) => types.includes(type))
}
