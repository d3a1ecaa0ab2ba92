import type { Command } from 'commander'
import { issueCredentials } from '../modules/partners/partner.service.js'
import { type Io, positiveInt, report, withDatabase } from './context.js'

export function registerCredentialsIssue(credentials: Command, io: Io) {
  credentials
    .command('issue')
    .description('Issue client credentials for a partner. The secret is shown once and stored only hashed.')
    .argument('<partner-id>', 'partner id')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { json?: boolean }) => {
      const partnerId = positiveInt(id, 'partner id')
      const issued = await withDatabase(io, (db, config) =>
        issueCredentials(db, partnerId, config.env, new Date().toISOString()),
      )
      report(
        io,
        options.json,
        issued,
        `client_id     ${issued.client_id}\nclient_secret ${issued.client_secret}\n(the secret is not shown again)`,
      )
    })
}
