import BetterSqlite3 from 'better-sqlite3'

// The SQL a service call runs, recorded at the driver, and the same statements replayed on a bare
// better-sqlite3 connection: what the database work of a request costs with nothing of the
// service around it (no Kysely, no row objects, no mapping). bench/ceiling.ts compares it with
// the per-request budget the ratios leave.

export interface Recorded {
  sql: string
  params: unknown[]
}

type Method = 'all' | 'run' | 'get' | 'iterate'
const METHODS: Method[] = ['all', 'run', 'get', 'iterate']

let recording: Recorded[] | null = null

/** Wraps the driver's statement methods once, so that every call made while recording is kept. */
function instrument(): void {
  const probe = new BetterSqlite3(':memory:')
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<Method, unknown> & {
    __recorded?: true
  }
  probe.close()
  if (proto.__recorded) return
  for (const method of METHODS) {
    const original = proto[method] as (this: BetterSqlite3.Statement, ...args: unknown[]) => unknown
    proto[method] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      recording?.push({ sql: this.source, params: args })
      return original.apply(this, args)
    }
  }
  proto.__recorded = true
}

/** The statements (SQL and parameters, in order) that `call` runs on any better-sqlite3 connection. */
export async function record(call: () => Promise<unknown>): Promise<Recorded[]> {
  instrument()
  const kept: Recorded[] = []
  recording = kept
  try {
    await call()
  } finally {
    recording = null
  }
  return kept
}

/**
 * Replays recorded calls (each a list of statements) on a new bare connection to `file`, round
 * robin, for `seconds` after a second of warm-up; µs per call. Statements are prepared once, before
 * timing, and reads run in raw mode (arrays, the driver's cheapest). A call that ends with
 * `rollback` (a write recorded inside a rolled-back transaction) replays as written, so the
 * database is left as it was — and the commit's WAL write is not counted.
 */
export function replay(file: string, calls: Recorded[][], seconds: number): number {
  const raw = new BetterSqlite3(file)
  raw.pragma('journal_mode = WAL')
  raw.pragma('synchronous = NORMAL')
  raw.pragma('foreign_keys = ON')
  const statements = new Map<string, BetterSqlite3.Statement>()
  const steps = calls.map((call) =>
    call.map(({ sql, params }) => {
      let stmt = statements.get(sql)
      if (!stmt) {
        stmt = raw.prepare(sql)
        if (stmt.reader) stmt.raw(true)
        statements.set(sql, stmt)
      }
      const run = stmt.reader ? stmt.all.bind(stmt) : stmt.run.bind(stmt)
      return () => run(...params)
    }),
  )
  const loop = (ms: number) => {
    const started = performance.now()
    let n = 0
    while (performance.now() - started < ms) {
      for (const step of steps[n % steps.length] as (() => unknown)[]) step()
      n++
    }
    return ((performance.now() - started) * 1000) / n
  }
  try {
    loop(1000)
    return loop(seconds * 1000)
  } finally {
    raw.close()
  }
}
