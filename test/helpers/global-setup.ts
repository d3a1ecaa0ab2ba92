// Vitest's global set-up, once a run: the sources bundled for the processes tests start
// (`amparoBundle`), and on PostgreSQL (DATABASE_URL set) a migrated template database beside
// DATABASE_URL's (`<name>_template`), each test file's database a copy of it (test-db.ts). At the
// end both go, with any copy a crashed file left behind.
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { bundle } from '../../scripts/bundle.mjs'
import { loadConfig } from '../../src/config.js'
import { createDb } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

declare module 'vitest' {
  export interface ProvidedContext {
    /** `amparo`, bundled from the sources as `npm run build` bundles it (test/helpers/amparo-process.ts). */
    amparoBundle: string
    /** The migrated template database each test file's database is copied from. */
    pgTemplate: string
  }
}

export default async function setup(project: TestProject) {
  // Inside the project, so that the bundle finds node_modules (its external packages) upwards.
  const bundled = mkdtempSync(join(root, 'node_modules', '.cache-amparo-tests-'))
  await bundle(join(root, 'src/cli/main.ts'), bundled)
  project.provide('amparoBundle', join(bundled, 'amparo.mjs'))
  const dropTemplate = await pgTemplate(project)
  return async () => {
    rmSync(bundled, { recursive: true, force: true })
    await dropTemplate()
  }
}

async function pgTemplate(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL
  if (!url) return async () => {}
  const base = decodeURIComponent(new URL(url).pathname.slice(1))
  if (!/^\w+$/.test(base)) throw new Error(`DATABASE_URL must name a database (letters, digits, _): ${url}`)
  const template = `${base}_template`
  await adminQuery(url, `drop database if exists ${template} with (force)`)
  await adminQuery(url, `create database ${template}`)
  const config = loadConfig({
    DATABASE_URL: databaseUrl(url, template),
    AMPARO_JWT_KEYS: `t=${'0'.repeat(32)}`,
  })
  const db = createDb(config.database)
  try {
    await migrateToLatest(db)
  } finally {
    await db.destroy()
  }
  project.provide('pgTemplate', template)
  return async () => {
    const leftovers = await listDatabases(url, base)
    for (const name of [...leftovers, template])
      await adminQuery(url, `drop database if exists ${name} with (force)`)
  }
}

/** The copies of this run's template still there: `<base>_` and 12 hex digits. */
async function listDatabases(url: string, base: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>(
      `select datname as name from pg_database where datname ~ $1`,
      [`^${base}_[0-9a-f]{12}$`],
    )
    return rows.map((row) => row.name)
  } finally {
    await client.end()
  }
}

/** `url` naming database `name` instead of its own. */
export function databaseUrl(url: string, name: string): string {
  const copy = new URL(url)
  copy.pathname = `/${name}`
  return copy.toString()
}

export async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}
