import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, it } from 'vitest'

// One writer per state (docs/decisions.md, "One writer per state"): a subscription's, an
// installment's and an annual plan's status is written only by its lifecycle function, whose
// from-sets are the rules file's. This reads the source for any other update that sets `status`.

const ROOT = join(import.meta.dirname, '..')
const TABLES = 'subscriptions|installments|annual_plans'
/** An update of one of the tables: the builder's (up to its end) or raw SQL's. */
const UPDATES = [
  new RegExp(
    `(?:updateTable|claimLease|releaseLease)\\((?:\\s*\\w+,)?\\s*'(?:${TABLES})'[\\s\\S]*?(?:execute\\w*|returning\\w*)\\(`,
    'g',
  ),
  new RegExp(`update\\s+(?:${TABLES})\\s+set[^;\`]*`, 'gi'),
]
const SETS_STATUS = /(?:[{,]\s*status\s*[:,}]|\bstatus\s*=(?!=)|\.set\(\s*'status')/

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

it('only the lifecycle functions write a subscription’s, an installment’s or an annual plan’s status', () => {
  const writers = sources(ROOT).flatMap((path) => {
    const text = readFileSync(path, 'utf8')
    return UPDATES.flatMap((pattern) =>
      [...text.matchAll(pattern)]
        .filter(([update]) => SETS_STATUS.test(update))
        .map(() => relative(ROOT, path)),
    )
  })
  expect(writers.sort()).toEqual([
    'modules/annual-plans/annual-plan.repository.ts', // transitionAnnualPlan
    'modules/subscriptions/subscription-lifecycle.repository.ts', // transitionInstallments
    'modules/subscriptions/subscription-lifecycle.repository.ts', // transitionSubscription
  ])
})
