import type { Command } from 'commander'
import type { ClaimStatus } from '../db/tables/claim.js'
import { CLAIM_STATUSES } from '../modules/claims/claim.rules.js'
import { listClaims } from '../modules/claims/claim-operator.service.js'
import { type Io, positiveInt, report, UsageError, withDatabase } from './context.js'

export function registerClaimList(claim: Command, io: Io) {
  claim
    .command('list')
    .description('List claims of every partner, newest first, with their fraud signals.')
    .option('--status <status>', `only claims in this status (${CLAIM_STATUSES.join(', ')})`)
    .option('--partner <id>', "only this partner's claims")
    .option('--limit <n>', 'at most this many (1-1000)', '50')
    .option('--json', 'print one JSON object')
    .action(async (options: { status?: string; partner?: string; limit: string; json?: boolean }) => {
      const status = options.status?.trim()
      if (status !== undefined && !(CLAIM_STATUSES as readonly string[]).includes(status)) {
        throw new UsageError(`--status must be one of ${CLAIM_STATUSES.join(', ')}, got '${status}'`)
      }
      const partnerId = options.partner === undefined ? undefined : positiveInt(options.partner, '--partner')
      const limit = positiveInt(options.limit, '--limit')
      if (limit > 1000) throw new UsageError(`--limit must be at most 1000, got ${limit}`)
      const data = await withDatabase(io, (db, config) =>
        listClaims(db, { status: status as ClaimStatus | undefined, partnerId, limit }, config.timeZone),
      )
      const lines = data.map(
        (c) =>
          `#${c.id} ${c.number} ${c.status_label} (${c.status}) · ${c.type} · partner #${c.partner.id} ${c.partner.name} · opened ${c.created_at}${c.fraud_signals.length > 0 ? ` · signals: ${c.fraud_signals.join(', ')}` : ''}`,
      )
      report(io, options.json, { data }, data.length === 0 ? 'No claims.' : lines.join('\n'))
    })
}
