import { pino } from 'pino'
import { type Config, loadConfig } from '../config.js'
import { createDb, type Db } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { whenReachable } from '../db/reachable.js'

export interface Io {
  env: Record<string, string | undefined>
  out: (text: string) => void
  err: (text: string) => void
}

/** A wrong argument or a refused operation: one line on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * Opens the configured database, migrated, for one command; always closes it. `waitForDatabase`
 * (a long-running process: the worker): an unreachable database is waited for, a line on stderr
 * per attempt, instead of failing the command.
 */
export async function withDatabase<T>(
  io: Io,
  work: (db: Db, config: Readonly<Config>) => Promise<T>,
  { waitForDatabase = false }: { waitForDatabase?: boolean } = {},
): Promise<T> {
  const config = loadConfig(io.env)
  const db = createDb(config.database)
  try {
    if (waitForDatabase) {
      const log = pino({ level: config.logLevel, base: { name: 'amparo' } }, { write: io.err })
      await whenReachable(() => migrateToLatest(db), {
        log: (details, message) => log.warn(details, message),
      })
    } else await migrateToLatest(db)
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
