import { bytes, DOCUMENT_KIND_LABELS, label } from '../../format'
import type { DeskClaim } from './claim.queries'
import { PdfViewer } from './PdfViewer'

type ClaimDocument = DeskClaim['documents'][number]

/**
 * The documents the partner sent, previewed in place: an image as it is, a PDF drawn by pdf.js
 * (its script never runs); each one downloadable, never opened by the browser inline.
 */
export function ClaimDocuments({ documents }: { documents: ClaimDocument[] }) {
  return (
    <section className="panel" aria-labelledby="h-docs">
      <h2 id="h-docs">Documentos ({documents.length})</h2>
      {documents.length === 0 ? <p className="muted">Nenhum documento enviado.</p> : null}
      <div className="docs">
        {documents.map((d) => (
          <DocumentPreview key={d.id} doc={d} />
        ))}
      </div>
    </section>
  )
}

function DocumentPreview({ doc }: { doc: ClaimDocument }) {
  const title = `${label(DOCUMENT_KIND_LABELS, doc.kind)} · ${doc.content_type} · ${bytes(doc.size)}`
  return (
    <figure className="doc">
      {doc.content_type.startsWith('image/') ? (
        <img
          src={doc.url}
          alt={`Enviado pelo parceiro: ${label(DOCUMENT_KIND_LABELS, doc.kind)}`}
          loading="lazy"
        />
      ) : doc.content_type === 'application/pdf' ? (
        <PdfViewer url={doc.url} title={label(DOCUMENT_KIND_LABELS, doc.kind)} />
      ) : (
        <p className="muted">Sem pré-visualização.</p>
      )}
      <figcaption>
        {title} ·{' '}
        <a href={doc.url} download={doc.filename}>
          baixar<span className="sr-only"> {label(DOCUMENT_KIND_LABELS, doc.kind)}</span>
        </a>
      </figcaption>
    </figure>
  )
}
