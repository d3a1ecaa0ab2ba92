import type { Command } from 'commander'
import type { Trx } from '../db/database.js'
import { retryingTransaction } from '../db/transaction.js'
import { DENIAL_REASONS, DOCUMENT_KINDS, SETTLEMENT_METHODS } from '../modules/claims/claim.rules.js'
import {
  approveClaim,
  denyClaim,
  type Moment,
  requestDocuments,
  settleClaim,
} from '../modules/claims/claim-decision.service.js'
import { claimIdOf, showClaimToOperator } from '../modules/claims/claim-operator.service.js'
import { renderingContext } from '../modules/events/event.service.js'
import { recordAudit } from '../modules/operators/audit.service.js'
import { amountToCents } from '../shared/money.js'
import { cliActor } from './audit.js'
import { type Io, report, withDatabase } from './context.js'

// The operator's decision and settlement of a claim (README, Claims: decision and settlement), and
// the request for more documents on a claim under review.

const OPERATOR = { operator: true } as const

/** Reais with at most two decimals (`1234.56`); null otherwise, which the approval refuses. */
function cents(value: string): number | null {
  const trimmed = value.trim()
  return /^\d{1,13}(\.\d{1,2})?$/.test(trimmed) ? amountToCents(Number(trimmed)) : null
}

type Decide = (trx: Trx, id: number, moment: Moment) => Promise<Awaited<ReturnType<typeof approveClaim>>>

/** What the audit log keeps of a claim: its status, decision, settlement and request for documents. */
const auditedClaim = ({
  status,
  decision,
  settlement,
  documents_request,
}: {
  status: string
  decision: unknown
  settlement: unknown
  documents_request: unknown
}) => ({
  status,
  decision,
  settlement,
  documents_request,
})

/**
 * Runs one decision on the claim named by id or number, in its own transaction with its audit
 * entry (`claim.<action>`), and reports it.
 */
async function decide(
  io: Io,
  idOrNumber: string,
  json: boolean | undefined,
  work: Decide,
  action: string,
  done: string,
) {
  const claim = await withDatabase(io, async (db, config) => {
    const id = await claimIdOf(db, idOrNumber)
    const moment = { now: new Date().toISOString(), rendering: renderingContext(config) }
    return retryingTransaction(db, async (trx) => {
      const before = await showClaimToOperator(trx, String(id), config.timeZone)
      const after = await work(trx, id, moment)
      await recordAudit(trx, {
        operator: cliActor(io),
        action: `claim.${action}`,
        recordType: 'claim',
        recordId: String(id),
        before: auditedClaim(before),
        after: auditedClaim(after),
        ip: null,
        at: moment.now,
      })
      return after
    })
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
        (trx, id, moment) => approveClaim(trx, OPERATOR, id, approval, moment),
        'approve',
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
        (trx, id, moment) => denyClaim(trx, OPERATOR, id, denial, moment),
        'deny',
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
        (trx, id, moment) => settleClaim(trx, OPERATOR, id, options.reference, moment),
        'settle',
        'settled',
      )
    })

  claim
    .command('request-documents')
    .description(
      'Ask for documents on a claim under review: it awaits them (documents_pending) and is under review again once each kind is uploaded.',
    )
    .argument('<claim>', 'claim id or number')
    .requiredOption(
      '--kind <kind...>',
      `document kinds asked for, one or more (${DOCUMENT_KINDS.join(', ')})`,
    )
    .requiredOption(
      '--message <text>',
      'what is asked of the insured, 10 to 500 characters (the partner sees it)',
    )
    .option('--json', 'print one JSON object')
    .action(async (idOrNumber: string, options: { kind: string[]; message: string; json?: boolean }) => {
      const request = { kinds: options.kind.map((kind) => kind.trim()), message: options.message }
      await decide(
        io,
        idOrNumber,
        options.json,
        (trx, id, moment) => requestDocuments(trx, id, request, moment),
        'request_documents',
        'awaits documents',
      )
    })
}
