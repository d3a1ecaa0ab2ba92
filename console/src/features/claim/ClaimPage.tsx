import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { FRAUD_SIGNAL_LABELS, label, PERIL_LABELS, when } from '../../format'
import { href } from '../../router'
import { useCan } from '../../session'
import { Badge, ErrorBox, Loading, Notice, PageTitle, statusTone } from '../../ui'
import { ClaimDecision } from './ClaimDecision'
import { ClaimDocuments } from './ClaimDocuments'
import { ContractFacts, CustomerFacts, DecisionFacts } from './ClaimFacts'
import { ClaimTimeline } from './ClaimTimeline'
import { claimQuery, type DeskClaim } from './claim.queries'

/** `#/sinistros/{id}`: one claim, and the adjuster's decision on it. */
export function ClaimPage({ id }: { id: string }) {
  const { data: claim, error, isLoading } = useQuery(claimQuery(id))
  const [notice, setNotice] = useState<string | null>(null)
  return (
    <>
      <p className="crumbs">
        <a href={href('/sinistros')}>← Fila de sinistros</a>
      </p>
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {claim ? <ClaimBody id={id} claim={claim} notice={notice} onDecided={setNotice} /> : null}
    </>
  )
}

function ClaimBody({
  id,
  claim,
  notice,
  onDecided,
}: {
  id: string
  claim: DeskClaim
  notice: string | null
  onDecided: (text: string) => void
}) {
  const canDecide = useCan('adjuster')
  return (
    <>
      <PageTitle>{`Sinistro ${claim.number}`}</PageTitle>
      <div className="claim-head">
        <Badge tone={statusTone(claim.status)}>
          <span data-testid="claim-status" data-status={claim.status}>
            {claim.status_label}
          </span>
        </Badge>
        <span>{label(PERIL_LABELS, claim.type)}</span>
        <span className="muted">·</span>
        <span>{claim.partner.name}</span>
        <span className="muted">·</span>
        <span>aberto em {when(claim.opened_at)}</span>
      </div>
      {notice ? <Notice>{notice}</Notice> : null}

      <div className="claim-grid">
        <div className="claim-main">
          {claim.fraud_signals.length > 0 ? (
            <section className="panel panel-warn" aria-labelledby="h-fraud">
              <h2 id="h-fraud">Sinais de fraude</h2>
              <ul data-testid="fraud-signals">
                {claim.fraud_signals.map((s) => (
                  <li key={s}>{label(FRAUD_SIGNAL_LABELS, s)}</li>
                ))}
              </ul>
            </section>
          ) : null}
          <ClaimDocuments documents={claim.documents} />
          <ClaimTimeline events={claim.timeline} />
        </div>

        <aside className="claim-side">
          {/* Keyed by status: a decision's answer brings the form of the next step, empty. */}
          {canDecide ? (
            <ClaimDecision key={claim.status} id={id} claim={claim} onDecided={onDecided} />
          ) : null}
          {claim.decision ? <DecisionFacts decision={claim.decision} settlement={claim.settlement} /> : null}
          <ContractFacts claim={claim} />
          <CustomerFacts claim={claim} />
        </aside>
      </div>
    </>
  )
}
