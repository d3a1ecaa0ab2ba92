import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { startServer } from '../server.js'
import type { Io } from './context.js'

export function registerServe(program: Command, io: Io) {
  program
    .command('serve')
    .description(
      'Run the API: migrate, load the demo into an empty test database, listen on HOST:PORT. On SQLite it also runs the background jobs (webhook delivery, recurrence, expiry, coverage clock, purges) in-process, so that it alone is a complete service; on PostgreSQL run `amparo worker` processes beside it.',
    )
    .option('--worker', 'run the background jobs in this process (the default on SQLite)')
    .option('--no-worker', 'do not run them here (the default on PostgreSQL)')
    .action(async (options: { worker?: boolean }) => {
      const config = loadConfig(io.env)
      await startServer(config, io.out, { worker: options.worker ?? config.database.kind === 'sqlite' })
    })
}
