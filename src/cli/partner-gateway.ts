import { Argument, type Command } from 'commander'
import { setGateway } from '../modules/partners/partner.service.js'
import type { GatewayMode } from '../modules/partners/partner.table.js'
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
      const updated = await withDatabase(io, (db) => setGateway(db, partnerId, mode))
      report(io, options.json, updated, `Partner #${updated.id} now uses the ${updated.gateway} gateway.`)
    })
}
