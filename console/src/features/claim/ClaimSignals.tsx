import { contractNames, DOCUMENT_KIND_LABELS, FRAUD_SIGNAL_LABELS, label, when } from '../../format'
import { href } from '../../router'
import type { DeskClaim } from './claim.queries'

type Evidence = DeskClaim['fraud_evidence'][number]
type OtherClaim = Evidence['claims'][number]

/**
 * The claim's fraud signals, each with what raised it: the other claims (any partner's, each a
 * link to its page), the card's replacement, the cover's start.
 */
export function ClaimSignals({ claim }: { claim: DeskClaim }) {
  if (claim.fraud_evidence.length === 0) return null
  return (
    <section className="panel panel-warn" aria-labelledby="h-fraud">
      <h2 id="h-fraud">Sinais de fraude</h2>
      <ul className="signals" data-testid="fraud-signals">
        {claim.fraud_evidence.map((evidence) => (
          <li key={evidence.signal} data-signal={evidence.signal}>
            <strong>{label(FRAUD_SIGNAL_LABELS, evidence.signal)}</strong>
            <SignalFacts evidence={evidence} />
          </li>
        ))}
      </ul>
    </section>
  )
}

function SignalFacts({ evidence }: { evidence: Evidence }) {
  return (
    <>
      {evidence.coverage_started_at ? (
        <p className="small">Cobertura iniciada em {when(evidence.coverage_started_at)}</p>
      ) : null}
      {evidence.card_changed_at ? (
        <p className="small">Cartão trocado em {when(evidence.card_changed_at)}</p>
      ) : null}
      {evidence.claims.length > 0 ? (
        <ul className="evidence">
          {evidence.claims.map((other) => (
            <OtherClaimItem key={`${other.id}-${other.document?.id ?? ''}`} other={other} />
          ))}
        </ul>
      ) : null}
    </>
  )
}

function OtherClaimItem({ other }: { other: OtherClaim }) {
  const names = contractNames(other.contract, other.partner.name)
  return (
    <li>
      <a href={href(`/sinistros/${other.id}`)}>Sinistro {other.number}</a>
      <span className="muted"> · {other.status_label}</span>
      <div className="small">
        {names.policy} · {names.partnerRef} · {other.customer_name} · aberto em {when(other.opened_at)}
      </div>
      {other.document ? <div className="small">{sameFileText(other.document)}</div> : null}
    </li>
  )
}

/** Which file of this claim has the same bytes as which of the other. */
function sameFileText(document: NonNullable<OtherClaim['document']>): string {
  const kind = label(DOCUMENT_KIND_LABELS, document.kind)
  return `Mesmo arquivo: “${document.own_filename}” neste sinistro e “${document.filename}” (${kind}) naquele`
}
