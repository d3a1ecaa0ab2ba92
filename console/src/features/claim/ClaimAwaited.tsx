import { DOCUMENT_KIND_LABELS, label, when } from '../../format'
import type { DeskClaim } from './claim.queries'

/** What the claim still awaits: the missing kinds, and the adjuster's request if one was made. */
export function ClaimAwaited({ claim }: { claim: DeskClaim }) {
  const request = claim.documents_request
  if (claim.required_documents.length === 0 && request === null) return null
  return (
    <section className="panel" aria-labelledby="h-awaited">
      <h2 id="h-awaited">Documentos pendentes</h2>
      {claim.required_documents.length === 0 ? (
        <p className="muted">Nenhum documento pendente.</p>
      ) : (
        <ul data-testid="required-documents">
          {claim.required_documents.map((kind) => (
            <li key={kind}>{label(DOCUMENT_KIND_LABELS, kind)}</li>
          ))}
        </ul>
      )}
      {request ? (
        <p className="small">
          Último pedido, em {when(request.requested_at)}: “{request.message}”
        </p>
      ) : null}
    </section>
  )
}
