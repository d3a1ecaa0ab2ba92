import type { Command } from 'commander'
import { loadDemo } from '../demo/demo.js'
import { type Io, report, withDatabase } from './context.js'

export function registerDemo(program: Command, io: Io) {
  program
    .command('demo')
    .description(
      'Load the demo catalog and two demo partners (external and own gateway); issues fresh credentials.',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const result = await withDatabase(io, (db, config) => loadDemo(db, config, new Date().toISOString()))
      const human = result.partners
        .map(
          (p) =>
            `${p.name} (#${p.id}, ${p.gateway}): client_id=${p.client_id} client_secret=${p.client_secret} email=${p.email} password=${p.password}`,
        )
        .join('\n')
      report(io, options.json, result, human)
    })
}
