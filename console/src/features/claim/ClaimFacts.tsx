import {
  brl,
  CLAIM_STATUS_LABELS,
  contractNames,
  DENIAL_REASON_LABELS,
  day,
  deviceText,
  label,
  PAID_WITH_LABELS,
  SETTLEMENT_METHOD_LABELS,
  when,
} from '../../format'
import type { DeskClaim } from './claim.queries'

export function DecisionFacts({
  decision,
  settlement,
}: {
  decision: NonNullable<DeskClaim['decision']>
  settlement: DeskClaim['settlement']
}) {
  return (
    <section className="panel" aria-labelledby="h-decision">
      <h2 id="h-decision">Decisão</h2>
      <dl className="facts">
        <dt>Resultado</dt>
        <dd>{label(CLAIM_STATUS_LABELS, decision.outcome)}</dd>
        {decision.settlement_method ? (
          <>
            <dt>Forma</dt>
            <dd>{label(SETTLEMENT_METHOD_LABELS, decision.settlement_method)}</dd>
            <dt>Aprovado</dt>
            <dd>{brl(decision.approved_amount_cents)}</dd>
            <dt>A pagar</dt>
            <dd>{brl(decision.payable_amount_cents)}</dd>
          </>
        ) : null}
        {decision.reason_code ? (
          <>
            <dt>Motivo</dt>
            <dd>{label(DENIAL_REASON_LABELS, decision.reason_code)}</dd>
          </>
        ) : null}
        {decision.note ? (
          <>
            <dt>Nota</dt>
            <dd>{decision.note}</dd>
          </>
        ) : null}
        <dt>Em</dt>
        <dd>{when(decision.decided_at)}</dd>
        <dt>Por</dt>
        <dd data-testid="decided-by">{decision.decided_by ?? '—'}</dd>
        {settlement?.reference ? (
          <>
            <dt>Liquidação</dt>
            <dd>
              {settlement.reference} ({when(settlement.settled_at)}
              {settlement.settled_by ? `, por ${settlement.settled_by}` : ''})
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  )
}

export function ContractFacts({ claim }: { claim: DeskClaim }) {
  const c = claim.contract
  const names = contractNames(c, claim.partner.name)
  return (
    <section className="panel" aria-labelledby="h-contract">
      <h2 id="h-contract">Contrato</h2>
      <dl className="facts">
        <dt>Apólice</dt>
        <dd>
          <span data-testid="policy-number">{names.policy}</span>
          <div className="small muted">{names.partnerRef}</div>
        </dd>
        <dt>Situação</dt>
        <dd>{c.status_label}</dd>
        <dt>Plano</dt>
        <dd>{c.plan.name}</dd>
        <dt>Vigência</dt>
        <dd>
          {day(c.starts_at)} a {day(c.ends_at ?? c.ends_on)}
        </dd>
        {/* The first installment's or the plan's `paid_with`; "—" while unpaid. */}
        <dt>Pagamento</dt>
        <dd data-testid="paid-with">{label(PAID_WITH_LABELS, c.paid_with)}</dd>
        <dt>LMI</dt>
        <dd>{brl(claim.payable_preview.lmi_cents)}</dd>
        <dt>Franquia</dt>
        <dd>{brl(claim.payable_preview.franchise_cents)}</dd>
      </dl>
    </section>
  )
}

export function CustomerFacts({ claim }: { claim: DeskClaim }) {
  return (
    <section className="panel" aria-labelledby="h-customer">
      <h2 id="h-customer">Cliente e aparelho</h2>
      <dl className="facts">
        <dt>Nome</dt>
        <dd>{claim.customer.name}</dd>
        <dt>Documento</dt>
        <dd>{claim.customer.document}</dd>
        {claim.customer.email ? (
          <>
            <dt>E-mail</dt>
            <dd>{claim.customer.email}</dd>
          </>
        ) : null}
        <dt>Aparelho</dt>
        <dd>{deviceText(claim.device)}</dd>
        <dt>Ocorrência</dt>
        <dd>{when(claim.occurred_at)}</dd>
        {claim.police_report?.number ? (
          <>
            <dt>B.O.</dt>
            <dd>
              {claim.police_report.number} ({day(claim.police_report.issued_on)})
            </dd>
          </>
        ) : null}
        {claim.description ? (
          <>
            <dt>Relato</dt>
            <dd>{claim.description}</dd>
          </>
        ) : null}
      </dl>
    </section>
  )
}
