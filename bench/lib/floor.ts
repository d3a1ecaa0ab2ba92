import { randomBytes } from 'node:crypto'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { createDb } from '../../src/db/database.js'
import type { Call } from './load.js'
import { cpuUs } from './proc.js'

// The database half of the floor: the SQL a request runs, recorded at the driver while the real
// app (built in this process from src/, fed by app.inject) answers it, then replayed on a bare
// connection, each statement prepared once, reads as raw arrays: no Kysely, no row objects, no
// mapping, no JSON. Its CPU a request plus the bare server's with the request log is the floor.

interface Statement {
  sql: string
  args: unknown[]
}
export type Database = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string }

const CONTROL = /^\s*(begin|commit|rollback|start transaction)\b/i
let recording: Statement[] | null = null

/** Wraps the drivers' statement calls once, so that every statement run while recording is kept. */
function instrument(): void {
  const probe = new BetterSqlite3(':memory:')
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>
  probe.close()
  if (statement.__recorded) return
  statement.__recorded = true
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = statement[method] as (...args: unknown[]) => unknown
    statement[method] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      recording?.push({ sql: this.source, args })
      return original.apply(this, args)
    }
  }
  const client = pg.Client.prototype as unknown as Record<string, unknown>
  const query = client.query as (...args: unknown[]) => unknown
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args as [string | { text?: string; values?: unknown[] }, unknown[]]
    const text = typeof config === 'string' ? config : config?.text
    const params = typeof config === 'string' ? values : config?.values
    if (recording && typeof text === 'string') recording.push({ sql: text, args: params ?? [] })
    return query.apply(this, args)
  }
}

/**
 * `count` calls of each maker, answered in-process by the app on `database` (on SQLite a copy
 * of it: the replay must not meet the contracts recorded here); the statements of each call.
 */
export async function record(
  env: Record<string, string | undefined>,
  database: Database,
  copy: string,
  make: Partial<Record<string, () => Call>>,
  count: number,
): Promise<Map<string, Statement[][]>> {
  instrument()
  if (database.kind === 'sqlite') {
    const live = new BetterSqlite3(database.file)
    live.prepare('vacuum into ?').run(copy)
    live.close()
  }
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', AMPARO_SQLITE_FILE: copy })
  const db = createDb(config.database)
  const app = await buildApp({ config, db })
  const recorded = new Map<string, Statement[][]>()
  try {
    await app.ready()
    for (const [id, maker] of Object.entries(make)) {
      const calls: Statement[][] = []
      for (let i = 0; i < count && maker; i++) {
        const { method, path, session, body } = maker()
        const kept: Statement[] = []
        recording = kept
        const response = await app.inject({
          method,
          url: path,
          headers: {
            authorization: `Bearer ${session.token}`,
            ...(body && { 'content-type': 'application/json' }),
          },
          payload: body,
        })
        recording = null
        if (response.statusCode >= 300)
          throw new Error(`floor: ${method} ${path}: ${response.statusCode} ${response.body.slice(0, 200)}`)
        if (!kept.some((s) => !CONTROL.test(s.sql)))
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

const EVENT_ID = /^evt_[0-9a-f]{32}$/

/**
 * The recorded calls replayed round robin on a bare connection for `seconds` after 0.3 s of
 * warm-up; CPU µs a call (on PostgreSQL its backend's too) and statements a call. A call that
 * wrote (it opened a transaction) replays inside one that rolls back, so the database is left as
 * it was and its commit is not counted: the floor can only be too low.
 */
export async function replay(database: Database, calls: Statement[][], seconds: number) {
  const writes = calls.map((call) => call.some((s) => /^\s*(begin|start)/i.test(s.sql)))
  const bodies = calls.map((call) => call.filter((s) => !CONTROL.test(s.sql)))
  let step: (i: number) => unknown
  let backendUs = () => 0
  let close: () => unknown
  if (database.kind === 'sqlite') {
    const db = new BetterSqlite3(database.file)
    db.pragma('foreign_keys = OFF') // the recorded ids are the copy's
    const prepared = new Map<string, BetterSqlite3.Statement>()
    const run = (sql: string, args: unknown[] = []) => {
      const statement = prepared.get(sql) ?? db.prepare(sql)
      prepared.set(sql, statement)
      return statement.reader ? statement.raw(true).all(...args) : statement.run(...args)
    }
    step = (i) => {
      if (writes[i]) run('begin')
      for (const { sql, args } of bodies[i] ?? []) run(sql, args)
      if (writes[i]) run('rollback')
    }
    close = () => db.close()
  } else {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const backend = Number((await client.query('select pg_backend_pid() as pid')).rows[0]?.pid)
    backendUs = () => cpuUs([backend])
    const names = new Map<string, string>()
    const named = (text: string) => names.get(text) ?? names.set(text, `floor_${names.size}`).get(text)
    // The recording committed its rows in this same database: an event id it generated would
    // collide on replay, so each replay gets fresh ones (SQLite replays on a copy taken before).
    const fresh = (args: unknown[]) =>
      args.map((a) =>
        typeof a === 'string' && EVENT_ID.test(a) ? `evt_${randomBytes(16).toString('hex')}` : a,
      )
    step = async (i) => {
      if (writes[i]) await client.query('begin')
      for (const { sql, args } of bodies[i] ?? [])
        await client.query({ name: named(sql), text: sql, values: writes[i] ? fresh(args) : args })
      if (writes[i]) await client.query('rollback')
    }
    close = () => client.end()
  }
  const loop = async (ms: number) => {
    let n = 0
    for (const started = performance.now(); performance.now() - started < ms; n++)
      await step(n % calls.length)
    return n
  }
  try {
    await loop(300)
    const [cpu, backend] = [process.cpuUsage(), backendUs()]
    const n = await loop(seconds * 1000)
    const used = process.cpuUsage(cpu)
    return { us: (used.user + used.system + backendUs() - backend) / n, statements: bodies[0]?.length ?? 0 }
  } finally {
    await close()
  }
}
