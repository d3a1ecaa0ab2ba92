import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import type { App } from '../../src/app.js'
import { run } from '../../src/cli/program.js'
import type { Db } from '../../src/db/database.js'
import { useTestApp } from './test-app.js'
import type { TestDatabase } from './test-db.js'
import { seedCatalog } from './world.js'

// Every command opens its own connection, so SQLite runs on a file (`:memory:` would give each
// command its own empty database); with DATABASE_URL set, the same schema is shared instead.
// A folder of the file's (a worker runs files one after another in one module graph).
export let dir = ''
export const sqliteFile = (name: string) => join(dir, `${name}.sqlite`)

export let main: TestDatabase
export let app: App

export interface Result {
  code: number
  out: string[]
  err: string[]
}

/**
 * The `node` arguments that run `amparo …` as a process of its own: the sources as bundled once for
 * the run (global-setup.ts), which start in a fifth of the CPU time tsx takes.
 */
export const amparoProcess = (...args: string[]) => [inject('amparoBundle'), ...args]

export async function amparoOn(env: Record<string, string>, argv: string[]): Promise<Result> {
  const out: string[] = []
  const err: string[] = []
  const code = await run(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out, err }
}

export const amparo = (...argv: string[]) => amparoOn(main.env, argv)

/** Runs a `--json` command that must succeed and returns its single JSON object. */
export async function json<T = Record<string, unknown>>(
  env: Record<string, string>,
  ...argv: string[]
): Promise<T> {
  const result = await amparoOn(env, [...argv, '--json'])
  expect(result.err, argv.join(' ')).toEqual([])
  expect(result.code, argv.join(' ')).toBe(0)
  expect(result.out).toHaveLength(1)
  const parsed = JSON.parse(result.out[0] as string)
  expect(typeof parsed).toBe('object')
  expect(Array.isArray(parsed)).toBe(false)
  return parsed as T
}

export const keys = (o: object) => Object.keys(o).sort()

export function writeJsonFile(name: string, content: unknown): string {
  const file = join(dir, name)
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
  return file
}

export let partnerCount = 0
export async function createPartner(gateway: 'external' | 'own' = 'external'): Promise<number> {
  partnerCount += 1
  const created = await json<{ id: number }>(
    main.env,
    'partner',
    'create',
    '--name',
    `CLI Partner ${partnerCount}`,
    '--gateway',
    gateway,
  )
  return created.id
}

export async function login(payload: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/auth/login', payload })
}

export const count = async (
  db: Db,
  table: 'partners' | 'brands' | 'models' | 'plans' | 'credentials' | 'partner_users',
) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )
/** A database with no tables yet: a new SQLite file, or a new empty PostgreSQL schema. */
export async function unmigratedDatabase(): Promise<{
  env: Record<string, string>
  drop: () => Promise<void>
}> {
  const url = process.env.DATABASE_URL
  if (!url) {
    return { env: { ...main.env, AMPARO_SQLITE_FILE: sqliteFile('unmigrated') }, drop: async () => {} }
  }
  const { default: pg } = await import('pg')
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  const schema = `test_cli_${Date.now().toString(36)}_${process.pid}`
  await admin(`create schema ${schema}`)
  const separator = url.includes('?') ? '&' : '?'
  return {
    env: {
      ...main.env,
      DATABASE_URL: `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    },
    drop: () => admin(`drop schema ${schema} cascade`),
  }
}

/** Opens the database and the app before a file's first test; closes and removes them after its last. */
export function useCliWorld(): void {
  // The file's own folder, made now: useTestApp reads the file's path as it is called.
  const folder = mkdtempSync(join(tmpdir(), 'amparo-cli-'))
  dir = folder
  // Registered first, so its after hook runs last: the folder goes once the database has closed.
  afterAll(() => rmSync(folder, { recursive: true, force: true }))
  const ctx = useTestApp({ sqliteFile: sqliteFile('main') })
  beforeAll(async () => {
    main = ctx
    app = ctx.app
    await seedCatalog(main.db)
  })
}
