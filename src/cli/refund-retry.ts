import type { Command } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { retryRefund } from '../modules/console/refunds.service.js'
import { renderingContext } from '../modules/events/event.service.js'
import { centsToAmount } from '../shared/money.js'
import { cliActor } from './audit.js'
import { type Io, positiveInt, report, withDatabase } from './context.js'

export function registerRefundRetry(refund: Command, io: Io) {
  refund
    .command('retry')
    .description(
      'Queue a failed refund of an annual plan again: the worker pays it at its next round, retrying errors for 3 more days.',
    )
    .argument('<plan-id>', 'annual plan id')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { json?: boolean }) => {
      const planId = positiveInt(id, 'annual plan id')
      const refund = await withDatabase(io, (db, config) =>
        retryingTransaction(db, (trx) =>
          retryRefund(
            trx,
            { operator: cliActor(io), ip: null },
            { annualPlanId: planId },
            new Date().toISOString(),
            renderingContext(config),
          ),
        ),
      )
      const result = {
        annual_plan_id: refund.annual_plan_id,
        status: refund.status,
        amount: centsToAmount(refund.amount_cents),
        attempts: refund.attempts,
        last_error: refund.last_error,
        next_attempt_at: refund.next_attempt_at,
        give_up_at: refund.give_up_at,
      }
      report(
        io,
        options.json,
        result,
        `Refund of annual plan #${planId} (R$ ${result.amount.toFixed(2)}) queued again: the worker pays it at its next round.`,
      )
    })
}
