import { type RawBuilder, type SqlBool, sql } from 'kysely'

/**
 * Whose rows a background job takes (the sandbox clocks: README, Try the recurrence in the sandbox): every partner's (production,
 * and the existing callers), one partner's (run at its own clock), or the partners whose clock is
 * not shifted, `unshifted_clocks` (the regular round in `test`, which runs the others one by one
 * at their time).
 */
export type PartnerScope = { partnerId: number } | 'unshifted_clocks' | undefined

/** The condition on `column` (a partner id) that keeps a query inside `scope`. */
export function inPartnerScope(scope: PartnerScope, column: string): RawBuilder<SqlBool> {
  const partnerId = sql.ref(column)
  if (scope === undefined) return sql<SqlBool>`1 = 1`
  if (scope === 'unshifted_clocks') {
    return sql<SqlBool>`${partnerId} in (select id from partners where clock_offset_seconds = 0)`
  }
  return sql<SqlBool>`${partnerId} = ${scope.partnerId}`
}
