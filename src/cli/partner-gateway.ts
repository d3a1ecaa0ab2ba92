import { Argument, type Command } from 'commander'
import type { GatewayMode } from '../db/tables/partner.js'
import { retryingTransaction } from '../db/transaction.js'
import { recordAudit } from '../modules/operators/audit.service.js'
import { requirePartner, setGateway } from '../modules/partners/partner.service.js'
import { countActiveWithoutCard } from '../modules/subscriptions/subscription.service.js'
import { cliActor } from './audit.js'
import { type Io, positiveInt, report, withDatabase } from './context.js'

export function registerPartnerGateway(partner: Command, io: Io) {
  partner
    .command('gateway')
    .description("Change a partner's payment gateway mode.")
    .argument('<id>', 'partner id')
    .addArgument(new Argument('<mode>', 'gateway mode').choices(['external', 'own']))
    .option('--json', 'print one JSON object')
    .action(async (id: string, mode: GatewayMode, options: { json?: boolean }) => {
      const partnerId = positiveInt(id, 'partner id')
      const { updated, stranded } = await withDatabase(io, async (db) => ({
        updated: await retryingTransaction(db, async (trx) => {
          const before = await requirePartner(trx, partnerId)
          const after = await setGateway(trx, partnerId, mode)
          await recordAudit(trx, {
            operator: cliActor(io),
            action: 'partner.gateway',
            recordType: 'partner',
            recordId: String(partnerId),
            before: { gateway: before.gateway },
            after: { gateway: after.gateway },
            ip: null,
          })
          return after
        }),
        stranded: mode === 'own' ? await countActiveWithoutCard(db, partnerId) : 0,
      }))
      report(io, options.json, updated, `Partner #${updated.id} now uses the ${updated.gateway} gateway.`)
      if (stranded > 0) {
        io.err(
          `amparo: warning: partner #${updated.id} has ${stranded} active subscription(s) without a card on file; ` +
            'under the own gateway their later installments can be neither notified nor charged. ' +
            'Switch back to external to keep collecting them.',
        )
      }
    })
}
