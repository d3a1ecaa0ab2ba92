import type { Command } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { newUser, upsertUser } from '../modules/partners/partner.service.js'
import { type Io, positiveInt, report, withDatabase } from './context.js'

export function registerUserCreate(user: Command, io: Io) {
  user
    .command('create')
    .description('Create a partner user for email/password login (an existing email gets the new password).')
    .argument('<partner-id>', 'partner id')
    .requiredOption('--email <email>', 'login e-mail')
    .requiredOption(
      '--password <password>',
      'password, 8 to 255 characters, not only spaces, no control characters',
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { email: string; password: string; json?: boolean }) => {
      const partnerId = positiveInt(id, 'partner id')
      const created = await withDatabase(io, async (db) => {
        const user = await newUser(options.email, options.password)
        return retryingTransaction(db, (trx) => upsertUser(trx, partnerId, user, new Date().toISOString()))
      })
      report(io, options.json, created, `User #${created.id} ${created.email} can log in.`)
    })
}
