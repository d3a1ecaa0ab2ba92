import type { Command } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { recordAudit } from '../modules/operators/audit.service.js'
import { issueCredentials, newCredentials } from '../modules/partners/partner.service.js'
import { cliActor } from './audit.js'
import { type Io, positiveInt, report, withDatabase } from './context.js'

export function registerCredentialsIssue(credentials: Command, io: Io) {
  credentials
    .command('issue')
    .description('Issue client credentials for a partner. The secret is shown once and stored only hashed.')
    .argument('<partner-id>', 'partner id')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { json?: boolean }) => {
      const partnerId = positiveInt(id, 'partner id')
      const issued = await withDatabase(io, async (db, config) => {
        const made = await newCredentials(config.env)
        return retryingTransaction(db, async (trx) => {
          const now = new Date().toISOString()
          const credentials = await issueCredentials(trx, partnerId, made, now)
          // The secret never goes into the log: only which credential, of which partner.
          await recordAudit(trx, {
            operator: cliActor(io),
            action: 'credentials.issue',
            recordType: 'credentials',
            recordId: credentials.client_id,
            before: null,
            after: { partner_id: partnerId, client_id: credentials.client_id, revoked: false },
            ip: null,
            at: now,
          })
          return credentials
        })
      })
      report(
        io,
        options.json,
        issued,
        `client_id     ${issued.client_id}\nclient_secret ${issued.client_secret}\n(the secret is not shown again)`,
      )
    })
}
