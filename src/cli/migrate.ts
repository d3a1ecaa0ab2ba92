import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { createDb } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { type Io, report } from './context.js'

export function registerMigrate(program: Command, io: Io) {
  program
    .command('migrate')
    .description('Apply pending database migrations.')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const db = createDb(loadConfig(io.env).database)
      try {
        const applied = await migrateToLatest(db)
        report(
          io,
          options.json,
          { applied },
          applied.length ? `Applied: ${applied.join(', ')}` : 'Up to date.',
        )
      } finally {
        await db.destroy()
      }
    })
}
