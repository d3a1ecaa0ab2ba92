import { type Config, loadConfig } from '../config.js'
import { createDb, type Db } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'

export interface Io {
  env: Record<string, string | undefined>
  out: (text: string) => void
  err: (text: string) => void
}

/** A wrong argument or a refused operation: one line on stderr, exit code 2. */
export class UsageError extends Error {}

/** Opens the configured database, migrated, for one command; always closes it. */
export async function withDatabase<T>(
  io: Io,
  work: (db: Db, config: Readonly<Config>) => Promise<T>,
): Promise<T> {
  const config = loadConfig(io.env)
  const db = createDb(config.database)
  try {
    await migrateToLatest(db)
    return await work(db, config)
  } finally {
    await db.destroy()
  }
}

/** `--json`: one JSON object on stdout; otherwise readable lines. */
export function report(io: Io, json: boolean | undefined, result: object, human: string) {
  io.out(json ? JSON.stringify(result) : human)
}

export function positiveInt(value: string, name: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647) {
    throw new UsageError(`${name} must be a positive integer, got '${value}'`)
  }
  return Number(value)
}
