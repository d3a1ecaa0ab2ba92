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

// Connection-level failures: the database is down, restarting or unreachable, not the query wrong.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08006',
  '53300', // too_many_connections
  // Another connection writing, still, after `retryingTransaction` gave up (or outside one).
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_TIMEOUT',
  // The disk is full: the write that needed the space is refused, until there is room again.
  'SQLITE_FULL',
])
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|is not currently accepting connections/i

/** Whether an error means "the database cannot be reached now" (answer 503), not a bug (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null
  if (!e) return false
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)
}
