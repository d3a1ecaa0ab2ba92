import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createDb } from '../../src/db/database.js'
import type { makers } from './load.js'
import { cpuUs } from './proc.js'

// The database half of the floor: the SQL a request runs, recorded at the driver while the real
// app (built in this process from src/, fed by app.inject) answers it, then replayed on a bare
// connection, each statement prepared once, reads as raw arrays: no Kysely, no row objects, no
// mapping, no JSON. Its CPU a request plus the bare server's with the request log is the floor.

interface Statement {
  sql: string
  args: unknown[]
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction)\b/i
let recording: Statement[] | null = null

/** Wraps the drivers' statement calls once, so that every statement run while recording is kept. */
function instrument(): void {
  const probe = new BetterSqlite3(':memory:')
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>
  probe.close()
  const client = pg.Client.prototype as unknown as Record<string, unknown>
  if (statement.__recorded) return
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = statement[method] as (...args: unknown[]) => unknown
    statement[method] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      recording?.push({ sql: this.source, args })
      return original.apply(this, args)
    }
  }
  const query = client.query as (...args: unknown[]) => unknown
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args as [unknown, unknown]
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text
    if (recording && typeof text === 'string') {
      const params = typeof config === 'string' ? values : (config as { values?: unknown }).values
      recording.push({ sql: text, args: Array.isArray(params) ? params : [] })
    }
    return query.apply(this, args)
  }
  statement.__recorded = true
}

/**
 * `count` requests of each scenario, answered in-process by the app on the database `env` names
 * (on SQLite a snapshot of it, `copy`: the contracts it commits must not be in the file the
 * replay writes to); the statements of each request, in order. A request not answered 2xx is an error.
 */
export async function recordRequests(
  env: Record<string, string | undefined>,
  copy: string,
  make: ReturnType<typeof makers>,
  ids: ('a' | 'b' | 'c' | 'd')[],
  count: number,
): Promise<Map<string, Statement[][]>> {
  instrument()
  if (env.AMPARO_SQLITE_FILE) {
    const live = new BetterSqlite3(env.AMPARO_SQLITE_FILE)
    live.prepare('vacuum into ?').run(copy)
    live.close()
  }
  const config = loadConfig(env.AMPARO_SQLITE_FILE ? { ...env, AMPARO_SQLITE_FILE: copy } : env)
  const db = createDb(config.database)
  const app = await buildApp({ config, db, logStream: { write() {} } })
  const recorded = new Map<string, Statement[][]>()
  try {
    await app.ready()
    for (const id of ids) {
      const calls: Statement[][] = []
      for (let i = 0; i < count; i++) {
        const { method, path, session, body } = make[id]()
        const kept: Statement[] = []
        recording = kept
        const response = await app.inject({
          method,
          url: path,
          headers: {
            authorization: `Bearer ${session.token}`,
            ...(body && { 'content-type': 'application/json' }),
          },
          ...(body && { payload: body }),
        })
        recording = null
        if (response.statusCode >= 300)
          throw new Error(
            `floor: ${method} ${path} answered ${response.statusCode} ${response.body.slice(0, 200)}`,
          )
        if (!kept.some((s) => !TRANSACTION_CONTROL.test(s.sql)))
          throw new Error(
            `floor: no statement recorded for ${method} ${path}: the recorder missed the driver`,
          )
        calls.push(kept)
      }
      recorded.set(id, calls)
    }
  } finally {
    recording = null
    await app.close()
    await db.destroy()
  }
  return recorded
}

/** Statements a request (transaction control aside), for the table. */
export const statementsPerCall = (calls: Statement[][]) =>
  (calls[0] ?? []).filter((s) => !TRANSACTION_CONTROL.test(s.sql)).length

/** Runs `step` round robin over the calls for `seconds` after 0.3 s of warm-up; CPU µs a call. */
async function timed(count: number, step: (i: number) => unknown, seconds: number, extraUs = () => 0) {
  const loop = async (ms: number) => {
    const started = performance.now()
    let n = 0
    for (; performance.now() - started < ms; n++) await step(n % count)
    return n
  }
  await loop(300)
  const before = process.cpuUsage()
  const extraBefore = extraUs()
  const n = await loop(seconds * 1000)
  const used = process.cpuUsage(before)
  return (used.user + used.system + extraUs() - extraBefore) / n
}

/**
 * The recorded calls replayed on a bare connection; CPU µs a call (on PostgreSQL its backend's
 * too). A call that wrote (it opened a transaction) replays inside one that rolls back, so the
 * database is left as it was and its commit is not counted: the floor can only be too low. On
 * SQLite the replay runs without foreign-key checks, as the recorded ids are the copy's.
 */
export async function replay(
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string },
  calls: Statement[][],
  seconds: number,
): Promise<number> {
  const writes = calls.map((call) => call.some((s) => /^\s*(begin|start)/i.test(s.sql)))
  const bodies = calls.map((call) => call.filter((s) => !TRANSACTION_CONTROL.test(s.sql)))
  if (database.kind === 'sqlite') {
    const db = new BetterSqlite3(database.file)
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = OFF')
    const prepared = new Map<string, BetterSqlite3.Statement>()
    const prepare = (sql: string) => {
      let statement = prepared.get(sql)
      if (!statement) {
        statement = db.prepare(sql)
        if (statement.reader) statement.raw(true)
        prepared.set(sql, statement)
      }
      return statement
    }
    const [begin, rollback] = [prepare('begin'), prepare('rollback')]
    const steps = bodies.map((body, i) => {
      const runs = body.map(({ sql, args }) => {
        const statement = prepare(sql)
        const run = (statement.reader ? statement.all : statement.run) as (...a: unknown[]) => unknown
        return () => run.apply(statement, args)
      })
      return writes[i]
        ? () => {
            begin.run()
            for (const run of runs) run()
            rollback.run()
          }
        : () => {
            for (const run of runs) run()
          }
    })
    try {
      return await timed(steps.length, (i) => steps[i]?.(), seconds)
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid')
    const backend = Number(rows[0]?.pid)
    const names = new Map<string, string>()
    const named = (text: string) => names.get(text) ?? names.set(text, `floor_${names.size}`).get(text)
    const step = async (i: number) => {
      if (writes[i]) await client.query('begin')
      for (const { sql, args } of bodies[i] ?? [])
        await client.query({ name: named(sql), text: sql, values: args })
      if (writes[i]) await client.query('rollback')
    }
    return await timed(bodies.length, step, seconds, () => cpuUs(backend))
  } finally {
    await client.end()
  }
}
