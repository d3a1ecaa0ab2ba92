import type { Command } from 'commander'
import { revokeCredentials } from '../modules/partners/partner.service.js'
import { type Io, report, withDatabase } from './context.js'

export function registerCredentialsRevoke(credentials: Command, io: Io) {
  credentials
    .command('revoke')
    .description('Revoke client credentials; tokens issued with them stop working at once.')
    .argument('<client-id>', 'client id')
    .option('--json', 'print one JSON object')
    .action(async (clientId: string, options: { json?: boolean }) => {
      const revoked = await withDatabase(io, (db) =>
        revokeCredentials(db, clientId, new Date().toISOString()),
      )
      report(io, options.json, revoked, `Revoked ${revoked.client_id}.`)
    })
}
