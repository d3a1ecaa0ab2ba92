import { deliveryErrorLabel, EVENT_TYPE_LABELS, int, label, when } from '../../format'
import { Badge, TableWrap } from '../../ui'
import type { ConsolePartner } from './partner.queries'

/** Each webhook endpoint's last 24 hours: its success rate, and the deliveries still failing. */
export function PartnerWebhooks({ endpoints }: { endpoints: ConsolePartner['webhook_endpoints'] }) {
  return (
    <section className="panel" aria-labelledby="h-hooks">
      <h2 id="h-hooks">Webhooks (últimas 24 h)</h2>
      {endpoints.length === 0 ? <p className="muted">Nenhum endpoint cadastrado.</p> : null}
      {endpoints.map((w) => {
        const total = w.deliveries_24h.succeeded + w.deliveries_24h.failed
        const rate = total === 0 ? null : w.deliveries_24h.succeeded / total
        return (
          <div key={w.id} className="hook">
            <p>
              <code className="url">{w.url}</code>{' '}
              {w.status === 'disabled' ? <Badge tone="bad">desativado</Badge> : null}{' '}
              {rate == null ? (
                // Only retries so far: nothing delivered nor given up on, but failing.
                w.failing_since ? (
                  <Badge tone="bad">falhando</Badge>
                ) : (
                  <Badge>sem entregas</Badge>
                )
              ) : (
                <Badge tone={rate >= 0.95 ? 'ok' : rate >= 0.5 ? 'warn' : 'bad'}>
                  {Math.round(rate * 100)}% de sucesso
                </Badge>
              )}
            </p>
            <p className="small">
              {int(w.deliveries_24h.succeeded)} entregues · {int(w.deliveries_24h.failed)} falharam
              {w.deliveries_24h.pending ? ` · ${int(w.deliveries_24h.pending)} pendentes` : ''}
              {w.failing_since ? ` · falhando desde ${when(w.failing_since)}` : ''}
            </p>
            {w.failing.length > 0 ? (
              <TableWrap label="Entregas com falha">
                <table className="list cards">
                  <caption>Entregas com falha</caption>
                  <thead>
                    <tr>
                      <th scope="col">Evento</th>
                      <th scope="col">Tentativas</th>
                      <th scope="col">Último erro</th>
                      <th scope="col">Próxima tentativa</th>
                    </tr>
                  </thead>
                  <tbody>
                    {w.failing.map((f) => (
                      <tr key={f.id}>
                        <td data-label="Evento">{label(EVENT_TYPE_LABELS, f.event_type)}</td>
                        <td data-label="Tentativas">{f.attempts}</td>
                        <td data-label="Último erro">{deliveryErrorLabel(f.last_error)}</td>
                        <td data-label="Próxima tentativa">{when(f.next_attempt_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            ) : null}
          </div>
        )
      })}
    </section>
  )
}
