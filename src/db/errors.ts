/**
 * Whether a database error is a unique-constraint violation, on either driver: the database,
 * not a prior lookup, is what decides a race between two concurrent creations.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}

/**
 * The columns of the violated unique constraint, when the driver says: PostgreSQL names the
 * constraint (`shopkeepers_registration_number_key` → look it up in `constraintColumns`),
 * SQLite lists the columns (`UNIQUE constraint failed: shopkeepers.registration_number`).
 */
export function violatedColumns(error: unknown, constraintColumns: Record<string, string[]> = {}): string[] {
  const e = error as { constraint?: string; message?: string }
  if (e.constraint) return constraintColumns[e.constraint] ?? []
  const listed = /UNIQUE constraint failed: (.+)$/.exec(e.message ?? '')?.[1]
  return listed ? listed.split(',').map((c) => c.trim().split('.').pop() as string) : []
}
