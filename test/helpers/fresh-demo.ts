import { sql } from 'kysely'
import type { App } from '../../src/app.js'
import type { Config } from '../../src/config.js'
import { type Db, isPostgres } from '../../src/db/database.js'
import { type DemoPartner, loadDemo } from '../../src/demo/demo.js'

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
    await sql`truncate ${sql.join(names.map((n) => sql.table(n)))} restart identity cascade`.execute(db)
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
