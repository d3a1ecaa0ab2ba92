// The demo world of test/openapi-examples.test.ts: the demo as `amparo demo` loads it on an empty
// database (`freshDemo`), and a `World` that sends the calls built from the examples as a demo
// partner, keeps the answers, and fills the parameters the examples leave to `links`.

import { sql } from 'kysely'
import type { App } from '../../../src/app.js'
import type { Config } from '../../../src/config.js'
import { type Db, isPostgres } from '../../../src/db/database.js'
import { type DemoPartner, loadDemo } from '../../../src/demo/demo.js'
import type { Call, Entry, OpenApi } from '../openapi-examples.js'

// Kept: the migrations' bookkeeping, and the signing keys the running app holds in memory.
const KEPT = new Set(['kysely_migration', 'kysely_migration_lock', 'signing_keys'])

/**
 * Empties every table of the test database and restarts its ids, so that the next `loadDemo`
 * gives the ids of a fresh install (brand 1, the external partner's matrix store 1, …) without
 * building a new app. Tables added by later migrations are emptied too.
 */
export async function emptyDatabase(db: Db): Promise<void> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ name: string }>`
      select tablename as name from pg_tables where schemaname = current_schema()`.execute(db)
    const names = rows.map((r) => r.name).filter((name) => !KEPT.has(name))
    if (names.length === 0) return
    // The audit log refuses TRUNCATE by trigger; a test emptying its own database sets it aside.
    await db.transaction().execute(async (trx) => {
      await sql`alter table audit_log disable trigger audit_log_no_truncate`.execute(trx)
      await sql`truncate ${sql.join(names.map((n) => sql.table(n)))} restart identity cascade`.execute(trx)
      await sql`alter table audit_log enable trigger audit_log_no_truncate`.execute(trx)
    })
    return
  }
  const { rows } = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
  await sql`pragma foreign_keys = off`.execute(db)
  try {
    for (const { name } of rows) if (!KEPT.has(name)) await sql`delete from ${sql.table(name)}`.execute(db)
    // AUTOINCREMENT ids start again only once their counters go.
    const counters = await sql`select name from sqlite_master where name = 'sqlite_sequence'`.execute(db)
    if (counters.rows.length > 0) await sql`delete from sqlite_sequence`.execute(db)
  } finally {
    await sql`pragma foreign_keys = on`.execute(db)
  }
}

/**
 * The demo as `amparo demo` loads it on an empty database at the app's clock time, and a token of
 * the chosen partner.
 */
export async function freshDemo(
  app: App,
  db: Db,
  config: Readonly<Config>,
  gateway: 'external' | 'own',
): Promise<{ partner: DemoPartner; token: string }> {
  await emptyDatabase(db)
  const { partners } = await loadDemo(db, config, app.clock.now().toISOString())
  const partner = partners.find((p) => p.gateway === gateway)
  if (!partner) throw new Error(`the demo has no ${gateway} partner`)
  const response = await app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { client_id: partner.client_id, client_secret: partner.client_secret },
  })
  if (response.statusCode !== 200) throw new Error(`demo login answered ${response.statusCode}`)
  return { partner, token: response.json().access_token }
}

/** A partner of the other gateway mode must run this operation. */
export class WrongGateway extends Error {}

/** The demo's state for one operation: the partner, its token, and the answers so far (for links). */
export class World {
  private readonly answers = new Map<string, { path: Call['path']; body: unknown }>()

  constructor(
    private readonly app: App,
    private readonly document: OpenApi,
    readonly partner: DemoPartner,
    private readonly token: string,
  ) {}

  /**
   * The call with what only this world knows: path parameters from the links of earlier answers
   * (the example's id is a fresh demo's, which the demo's own contract may have taken), the demo
   * partner's credentials for a login example's placeholders.
   */
  resolve(entry: Entry, call: Call): Call {
    const path = { ...call.path }
    for (const [name, value] of Object.entries(path)) path[name] = this.linked(entry, name) ?? value
    let body = call.body
    if (body && typeof body === 'object' && 'client_secret' in body)
      body = { ...body, client_id: this.partner.client_id, client_secret: this.partner.client_secret }
    return { ...call, path, body }
  }

  /** The value a link of an earlier answer gives `name`: a link to this operation, else any link naming it. */
  private linked(entry: Entry, name: string): string | undefined {
    const links = [...this.answers.keys()].flatMap((operationId) => {
      const source = this.operation(operationId)
      return Object.values(source?.responses ?? {}).flatMap((response) =>
        Object.values(response.links ?? {}).map((link) => ({ link, answer: this.answers.get(operationId) })),
      )
    })
    const named = links.filter(({ link }) => link.parameters[name] !== undefined)
    const found = named.find(({ link }) => link.operationId === entry.operationId) ?? named[0]
    return found?.answer && evaluate(found.link.parameters[name] as string, found.answer)
  }

  private operation(operationId: string) {
    for (const item of Object.values(this.document.paths))
      for (const operation of Object.values(item)) if (operation.operationId === operationId) return operation
    return undefined
  }

  /** Sends the call; a 2xx answer is kept for the links of later calls. */
  async run(entry: Entry, call: Call) {
    const answer = await this.send(call, entry)
    // A 204 has no body to read, a download no JSON.
    if (answer.statusCode < 300 && answer.headers['content-type']?.toString().startsWith('application/json'))
      this.answers.set(entry.operationId, { path: call.path, body: answer.json() })
    return answer
  }

  async send(call: Call, entry?: Entry) {
    const missing = Object.entries(call.path).find(([, value]) => value === undefined)
    if (missing)
      throw new Error(`${entry?.operationId ?? call.label}: no example nor link for {${missing[0]}}`)
    const template = entry?.path ?? ''
    const url = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(call.path[name] ?? ''),
    )
    const search = new URLSearchParams(call.query).toString()
    const headers: Record<string, string> = { ...call.headers }
    if (!call.anonymous) headers.authorization = `Bearer ${this.token}`
    if (call.raw) headers['content-type'] = call.raw.contentType
    const answer = await this.app.inject({
      method: (entry?.method ?? 'GET') as 'GET',
      url: search ? `${url}?${search}` : url,
      headers,
      ...(call.raw
        ? { payload: call.raw.payload }
        : call.body !== undefined && { payload: call.body as object }),
    })
    if (answer.statusCode === 422 && answer.json().code === 'wrong_gateway') throw new WrongGateway()
    return answer
  }
}

/** `$response.body#/data/0/id` or `$request.path.id`, against a kept answer. */
function evaluate(expression: string, answer: { path: Call['path']; body: unknown }): string | undefined {
  if (expression.startsWith('$request.path.')) return answer.path[expression.slice('$request.path.'.length)]
  const pointer = expression.match(/^\$response\.body#(.*)$/)?.[1]
  if (pointer === undefined) return undefined
  let value: unknown = answer.body
  for (const token of pointer.split('/').slice(1))
    value = (value as Record<string, unknown> | undefined)?.[token]
  return value === undefined ? undefined : String(value)
}
