import type { Command } from 'commander'
import { showClaimToOperator } from '../modules/claims/claim-operator.service.js'
import { type Io, report, withDatabase } from './context.js'

export function registerClaimShow(claim: Command, io: Io) {
  claim
    .command('show')
    .description('Show a claim as its partner sees it, with its partner and fraud signals (operators only).')
    .argument('<claim>', 'claim id or number (SIN-2026-000001)')
    .option('--json', 'print one JSON object')
    .action(async (idOrNumber: string, options: { json?: boolean }) => {
      const claim = await withDatabase(io, (db, config) =>
        showClaimToOperator(db, idOrNumber, config.timeZone),
      )
      const lines = [
        `Claim #${claim.id} ${claim.number}: ${claim.status_label} (${claim.status}), partner #${claim.partner_id}`,
        `${claim.type_label} on ${claim.occurred_at}; ${claim.device.model.name} ${claim.device.serial_number ?? ''}`.trim(),
        `Customer: ${claim.customer.name} (${claim.customer.document})`,
        `Contract: ${claim.subscription_id === null ? `annual plan #${claim.annual_plan_id}` : `subscription #${claim.subscription_id}`}; LMI R$ ${claim.lmi.toFixed(2)}, franchise R$ ${claim.franchise.toFixed(2)}`,
        `Fraud signals: ${claim.fraud_signals.length === 0 ? 'none' : claim.fraud_signals.join(', ')}`,
        `Missing documents: ${claim.required_documents.length === 0 ? 'none' : claim.required_documents.join(', ')}`,
        `Documents: ${claim.documents.length === 0 ? 'none' : claim.documents.map((d) => `${d.kind} ${d.filename}`).join(', ')}`,
      ]
      const d = claim.decision
      if (d?.outcome === 'approved') {
        lines.push(
          `Approved on ${d.decided_at}: ${d.settlement_method}, R$ ${d.approved_amount?.toFixed(2)}, payable R$ ${d.payable_amount?.toFixed(2)}`,
        )
      } else if (d?.outcome === 'denied')
        lines.push(`Denied on ${d.decided_at}: ${d.reason_code}, "${d.note}"`)
      if (claim.settlement) {
        lines.push(
          `Settled on ${claim.settlement.settled_at}, reference ${claim.settlement.reference ?? '(none)'}`,
        )
      }
      report(io, options.json, claim, lines.join('\n'))
    })
}
