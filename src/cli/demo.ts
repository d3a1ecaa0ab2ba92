import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { loadDemo } from '../demo/demo.js'
import { type Io, report, UsageError, withDatabase } from './context.js'

export function registerDemo(program: Command, io: Io) {
  program
    .command('demo')
    .description(
      'Load the demo catalog and two demo partners (external and own gateway); issues fresh credentials. Refused in production.',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      // Its partners' passwords are published (README, this output); in production their ids would
      // be live ones. `serve` loads the demo only in test, too.
      if (loadConfig(io.env).env === 'production') {
        throw new UsageError('amparo demo is refused when AMPARO_ENV=production (its passwords are public)')
      }
      const result = await withDatabase(io, (db, config) => loadDemo(db, config, new Date().toISOString()))
      const human = result.partners
        .map(
          (p) =>
            `${p.name} (#${p.id}, ${p.gateway}): client_id=${p.client_id} client_secret=${p.client_secret} email=${p.email} password=${p.password}`,
        )
        .join('\n')
      const operator = `Operator console: email=${result.operator.email} password=${result.operator.password}`
      report(io, options.json, result, `${human}\n${operator}`)
    })
}
