import { type RawBuilder, type SqlBool, sql } from 'kysely'

/**
 * The row (installment or annual plan) is not held by a charge in progress: never claimed, or its
 * claim has run out (the process that held it died mid-charge). The one condition every claim,
 * cancellation and expiry uses.
 */
export function notHeld(now: string, column = 'locked_until'): RawBuilder<SqlBool> {
  const lockedUntil = sql.ref(column)
  return sql<SqlBool>`(${lockedUntil} is null or ${lockedUntil} < ${now})`
}
