import type { ReactNode } from 'react'
import { ACTIVITY_LABELS, DOCUMENT_KIND_LABELS, label, when } from '../../format'
import type { ActivityEntry } from './claim.queries'

/** One feed of what happened to the claim, newest first, each with who and when. */
export function ClaimActivity({ entries, children }: { entries: ActivityEntry[]; children?: ReactNode }) {
  return (
    <section className="panel" aria-labelledby="h-activity">
      <h2 id="h-activity">Atividade</h2>
      {children}
      <ol className="activity" data-testid="activity">
        {[...entries].reverse().map((entry) => (
          <li key={entry.id} data-kind={entry.kind}>
            <p className="activity-head">
              <strong>{label(ACTIVITY_LABELS, entry.kind)}</strong>
              <span className="muted">
                {' '}
                · {whoText(entry.by)} · <time dateTime={entry.at}>{when(entry.at)}</time>
              </span>
            </p>
            <Detail entry={entry} />
          </li>
        ))}
      </ol>
    </section>
  )
}

function whoText(by: ActivityEntry['by']): string {
  if (by.type === 'partner') return `${by.label} (parceiro)`
  if (by.type === 'cli') return `${by.label.replace(/^cli:/, '')} (linha de comando)`
  return by.label
}

function Detail({ entry }: { entry: ActivityEntry }) {
  if (entry.kind === 'document_received' && entry.document) {
    return (
      <p className="small">
        {label(DOCUMENT_KIND_LABELS, entry.document.kind)}: {entry.document.filename}
      </p>
    )
  }
  if (entry.kind === 'documents_requested') {
    return (
      <p className="small">
        {(entry.kinds ?? []).map((k) => label(DOCUMENT_KIND_LABELS, k)).join(', ')} — “{entry.message}”
      </p>
    )
  }
  if (entry.kind === 'note') return <p className="note-body">{entry.note}</p>
  if (entry.kind === 'assigned') {
    return <p className="small">{entry.assignee ? `Para ${entry.assignee.email}` : 'Sem responsável'}</p>
  }
  return null
}
