import { EVENT_TYPE_LABELS, label, when } from '../../format'
import type { DeskClaim } from './claim.queries'

/** The events of the claim's contract (the partner API's event types). */
export function ClaimTimeline({ events }: { events: DeskClaim['timeline'] }) {
  return (
    <section className="panel" aria-labelledby="h-timeline">
      <h2 id="h-timeline">Linha do tempo do contrato</h2>
      {events.length === 0 ? <p className="muted">Sem eventos.</p> : null}
      <ol className="timeline">
        {events.map((e) => (
          <li key={e.id}>
            <time>{when(e.created_at)}</time> {label(EVENT_TYPE_LABELS, e.type)}
          </li>
        ))}
      </ol>
    </section>
  )
}
