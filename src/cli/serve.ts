import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { startServer } from '../server.js'
import type { Io } from './context.js'

export function registerServe(program: Command, io: Io) {
  program
    .command('serve')
    .description('Run the API: migrate, load the demo into an empty test database, listen on HOST:PORT.')
    .action(async () => {
      await startServer(loadConfig(io.env), io.out)
    })
}
