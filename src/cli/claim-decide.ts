import type { Command } from 'commander'
import type { Db } from '../db/database.js'
import { retryingTransaction } from '../db/transaction.js'
import { DENIAL_REASONS, SETTLEMENT_METHODS } from '../modules/claims/claim.rules.js'
import {
  approveClaim,
  denyClaim,
  type Moment,
  settleClaim,
} from '../modules/claims/claim-decision.service.js'
import { claimIdOf } from '../modules/claims/claim-operator.service.js'
import { renderingContext } from '../modules/events/event.service.js'
import { amountToCents } from '../shared/money.js'
import { type Io, report, withDatabase } from './context.js'

// The operator's decision and settlement of a claim (README, Claims: decision and settlement).

const OPERATOR = { operator: true } as const

/** Reais with at most two decimals (`1234.56`); null otherwise, which the approval refuses. */
function cents(value: string): number | null {
  const trimmed = value.trim()
  return /^\d{1,13}(\.\d{1,2})?$/.test(trimmed) ? amountToCents(Number(trimmed)) : null
}

type Decide = (db: Db, id: number, moment: Moment) => Promise<Awaited<ReturnType<typeof approveClaim>>>

/** Runs one decision on the claim named by id or number, in its own transaction, and reports it. */
async function decide(io: Io, idOrNumber: string, json: boolean | undefined, work: Decide, done: string) {
  const claim = await withDatabase(io, async (db, config) => {
    const id = await claimIdOf(db, idOrNumber)
    return work(db, id, { now: new Date().toISOString(), rendering: renderingContext(config) })
  })
  report(
    io,
    json,
    claim,
    `Claim #${claim.id} ${claim.number} ${done}: ${claim.status_label} (${claim.status}).`,
  )
}

export function registerClaimDecisions(claim: Command, io: Io) {
  claim
    .command('approve')
    .description(
      'Approve a claim under review; the payable amount is the approved amount − the franchise (≥ 0).',
    )
    .argument('<claim>', 'claim id or number')
    .requiredOption('--method <method>', `settlement method (${SETTLEMENT_METHODS.join(', ')})`)
    .requiredOption('--amount <reais>', "approved amount in reais, e.g. 3500.00 (> 0, ≤ the contract's LMI)")
    .option('--json', 'print one JSON object')
    .action(async (idOrNumber: string, options: { method: string; amount: string; json?: boolean }) => {
      const approval = { settlementMethod: options.method.trim(), approvedAmount: cents(options.amount) }
      await decide(
        io,
        idOrNumber,
        options.json,
        (db, id, moment) =>
          retryingTransaction(db, (trx) => approveClaim(trx, OPERATOR, id, approval, moment)),
        'approved',
      )
    })

  claim
    .command('deny')
    .description(
      'Deny a claim awaiting documents or under review, with a reason and a note the partner sees.',
    )
    .argument('<claim>', 'claim id or number')
    .requiredOption('--reason <code>', `reason code (${DENIAL_REASONS.join(', ')})`)
    .requiredOption('--note <text>', 'the note the partner sees')
    .option('--json', 'print one JSON object')
    .action(async (idOrNumber: string, options: { reason: string; note: string; json?: boolean }) => {
      const denial = { reasonCode: options.reason.trim(), note: options.note }
      await decide(
        io,
        idOrNumber,
        options.json,
        (db, id, moment) => retryingTransaction(db, (trx) => denyClaim(trx, OPERATOR, id, denial, moment)),
        'denied',
      )
    })

  claim
    .command('settle')
    .description(
      'Settle an approved claim; a replacement or indemnity ends its contract (claim_settled) and frees the device.',
    )
    .argument('<claim>', 'claim id or number')
    .requiredOption('--reference <reference>', 'the repair order or transfer id (at most 100 characters)')
    .option('--json', 'print one JSON object')
    .action(async (idOrNumber: string, options: { reference: string; json?: boolean }) => {
      await decide(
        io,
        idOrNumber,
        options.json,
        (db, id, moment) =>
          retryingTransaction(db, (trx) => settleClaim(trx, OPERATOR, id, options.reference, moment)),
        'settled',
      )
    })
}
