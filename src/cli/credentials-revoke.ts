import type { Command } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { recordAudit } from '../modules/operators/audit.service.js'
import { revokeCredentials } from '../modules/partners/partner.service.js'
import { cliActor } from './audit.js'
import { type Io, report, withDatabase } from './context.js'

export function registerCredentialsRevoke(credentials: Command, io: Io) {
  credentials
    .command('revoke')
    .description('Revoke client credentials; tokens issued with them stop working at once.')
    .argument('<client-id>', 'client id')
    .option('--json', 'print one JSON object')
    .action(async (clientId: string, options: { json?: boolean }) => {
      const revoked = await withDatabase(io, (db) =>
        retryingTransaction(db, async (trx) => {
          const now = new Date().toISOString()
          const result = await revokeCredentials(trx, clientId, now)
          await recordAudit(trx, {
            operator: cliActor(io),
            action: 'credentials.revoke',
            recordType: 'credentials',
            recordId: result.client_id,
            before: null,
            after: result,
            ip: null,
            at: now,
          })
          return result
        }),
      )
      report(io, options.json, revoked, `Revoked ${revoked.client_id}.`)
    })
}
