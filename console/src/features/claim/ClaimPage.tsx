import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { CLAIM_STATUS_LABELS, label, PERIL_LABELS, when } from '../../format'
import { href } from '../../router'
import { useCan } from '../../session'
import { Badge, ErrorBox, Loading, Notice, PageTitle, statusTone } from '../../ui'
import { ClaimActivity } from './ClaimActivity'
import { ClaimAssignee } from './ClaimAssignee'
import { ClaimAwaited } from './ClaimAwaited'
import { ClaimDecision } from './ClaimDecision'
import { ClaimDocuments } from './ClaimDocuments'
import { ContractFacts, CustomerFacts, DecisionFacts } from './ClaimFacts'
import { ClaimNoteForm } from './ClaimNotes'
import { ClaimRequestDocuments } from './ClaimRequestDocuments'
import { ClaimSignals } from './ClaimSignals'
import { ClaimTimeline } from './ClaimTimeline'
import { claimQuery, type DeskClaim } from './claim.queries'

type Message = { tone: 'ok' | 'stale'; text: string; claimId: string }

/** `#/sinistros/{id}`: one claim, and the adjuster's work on it. */
export function ClaimPage({ id }: { id: string }) {
  const { data: claim, error, isLoading } = useQuery(claimQuery(id))
  const [message, setMessage] = useState<Message | null>(null)
  return (
    <>
      <p className="crumbs">
        <a href={href('/sinistros')}>← Fila de sinistros</a>
      </p>
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {claim ? (
        <ClaimBody
          id={id}
          claim={claim}
          // A result belongs to the claim it was shown on, not to the next one opened.
          message={message?.claimId === id ? message : null}
          onMessage={setMessage}
        />
      ) : null}
    </>
  )
}

/** What the loser of a race reads: who decided the claim first, what, and when. */
export function staleText(claim: DeskClaim): string {
  if (claim.settlement) {
    return `Outro operador já liquidou este sinistro: ${claim.settlement.settled_by ?? 'alguém'} em ${when(claim.settlement.settled_at)}. A página foi atualizada.`
  }
  if (claim.decision) {
    return `Outro operador decidiu antes: ${label(CLAIM_STATUS_LABELS, claim.decision.outcome)} por ${claim.decision.decided_by ?? 'alguém'} em ${when(claim.decision.decided_at)}. A página foi atualizada.`
  }
  return `O sinistro mudou enquanto você decidia: agora está “${claim.status_label}”. A página foi atualizada.`
}

function ClaimBody({
  id,
  claim,
  message,
  onMessage,
}: {
  id: string
  claim: DeskClaim
  message: Message | null
  onMessage: (message: Message) => void
}) {
  const canDecide = useCan('adjuster')
  const messageRef = useRef<HTMLDivElement>(null)
  // Focus moves to each result, so a keyboard or screen-reader user hears it.
  useEffect(() => {
    if (message) messageRef.current?.focus()
  }, [message])
  const done = (text: string) => onMessage({ tone: 'ok', text, claimId: id })
  const stale = (fresh: DeskClaim) => onMessage({ tone: 'stale', text: staleText(fresh), claimId: id })
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
      {message ? (
        <div ref={messageRef} tabIndex={-1} data-testid="claim-message">
          {message.tone === 'ok' ? (
            <Notice>{message.text}</Notice>
          ) : (
            <div className="alert alert-warn" role="alert">
              {message.text}
            </div>
          )}
        </div>
      ) : null}

      <div className="claim-grid">
        <div className="claim-main">
          <ClaimSignals claim={claim} />
          <ClaimAwaited claim={claim} />
          <ClaimDocuments documents={claim.documents} />
          <ClaimActivity entries={claim.activity}>
            {canDecide ? <ClaimNoteForm id={id} /> : null}
          </ClaimActivity>
          <ClaimTimeline events={claim.timeline} />
        </div>

        <aside className="claim-side">
          <ClaimAssignee id={id} claim={claim} />
          {/* Keyed by status: a decision's answer brings the form of the next step, empty. */}
          {canDecide ? (
            <ClaimDecision key={claim.status} id={id} claim={claim} onDecided={done} onStale={stale} />
          ) : null}
          {canDecide && claim.status === 'under_review' ? (
            <ClaimRequestDocuments key={claim.updated_at} id={id} onDone={done} onStale={stale} />
          ) : null}
          {claim.decision ? <DecisionFacts decision={claim.decision} settlement={claim.settlement} /> : null}
          <ContractFacts claim={claim} />
          <CustomerFacts claim={claim} />
        </aside>
      </div>
    </>
  )
}
