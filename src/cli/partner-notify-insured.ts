import { Argument, type Command } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { recordAudit } from '../modules/operators/audit.service.js'
import { setNotifyInsured } from '../modules/partners/partner.service.js'
import { cliActor } from './audit.js'
import { type Io, positiveInt, report, withDatabase } from './context.js'

export function registerPartnerNotifyInsured(partner: Command, io: Io) {
  partner
    .command('notify-insured')
    .description(
      "Switch Amparo's e-mails to a partner's customers on or off (off for a partner that writes to them itself; sign-in codes still go).",
    )
    .argument('<id>', 'partner id')
    .addArgument(new Argument('<switch>', 'on or off').choices(['on', 'off']))
    .option('--json', 'print one JSON object')
    .action(async (id: string, choice: 'on' | 'off', options: { json?: boolean }) => {
      const partnerId = positiveInt(id, 'partner id')
      const updated = await withDatabase(io, (db) =>
        retryingTransaction(db, async (trx) => {
          const { before, ...after } = await setNotifyInsured(trx, partnerId, choice === 'on')
          await recordAudit(trx, {
            operator: cliActor(io),
            action: 'partner.notify_insured',
            recordType: 'partner',
            recordId: String(partnerId),
            before: { notify_insured: before },
            after: { notify_insured: after.notify_insured },
            ip: null,
          })
          return after
        }),
      )
      report(
        io,
        options.json,
        updated,
        `Partner #${updated.id}: messages to its customers ${updated.notify_insured ? 'on' : 'off'}.`,
      )
    })
}
