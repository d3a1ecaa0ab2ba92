import { useState } from 'react'
import { del, get, post } from '../api/client'
import type { PartnerDetail } from '../api/types'
import { int, KIND_LABELS, label, when } from '../format'
import { href } from '../router'
import { useCan } from '../session'
import { Badge, ErrorBox, Loading, PageTitle, TableWrap, useLoad } from '../ui'

export function PartnerScreen({ id }: { id: string }) {
  const { data, error, loading, reload } = useLoad(() => get<PartnerDetail>(`/api/partners/${id}`), [id])
  const isAdmin = useCan('admin')
  const [issued, setIssued] = useState<{ client_id: string; client_secret: string } | null>(null)
  const [confirmRevoke, setConfirmRevoke] = useState<number | null>(null)
  const [actionError, setActionError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  async function issue() {
    setBusy(true)
    setActionError(null)
    try {
      setIssued(await post<{ client_id: string; client_secret: string }>(`/api/partners/${id}/credentials`))
      reload()
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(false)
    }
  }

  async function revoke(credentialId: number) {
    setConfirmRevoke(null)
    setBusy(true)
    setActionError(null)
    try {
      await del(`/api/partners/${id}/credentials/${credentialId}`)
      reload()
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <p className="crumbs">
        <a href={href('/parceiros')}>← Parceiros</a>
      </p>
      <ErrorBox error={error} />
      {loading && !data ? <Loading /> : null}
      {data ? (
        <>
          <PageTitle>{data.name}</PageTitle>
          <p>
            Gateway:{' '}
            <strong>
              {data.gateway === 'own'
                ? 'Amparo cobra o cartão (own)'
                : data.gateway === 'external'
                  ? 'o parceiro cobra (external)'
                  : (data.gateway ?? '—')}
            </strong>
          </p>
          <ErrorBox error={actionError} />

          <section className="panel" aria-labelledby="h-creds">
            <div className="panel-head">
              <h2 id="h-creds">Credenciais</h2>
              {isAdmin ? (
                <button type="button" className="btn btn-primary" disabled={busy} onClick={issue}>
                  Emitir credencial
                </button>
              ) : null}
            </div>
            {issued ? (
              <div className="alert alert-warn secret-box" role="status" data-testid="issued-secret">
                <p>
                  <strong>Copie o segredo agora: ele não será mostrado de novo.</strong>
                </p>
                <dl className="facts">
                  <dt>client_id</dt>
                  <dd>
                    <code data-testid="issued-client-id">{issued.client_id}</code>
                  </dd>
                  <dt>client_secret</dt>
                  <dd>
                    <code data-testid="issued-client-secret">{issued.client_secret}</code>
                  </dd>
                </dl>
                <button type="button" className="btn btn-small" onClick={() => setIssued(null)}>
                  Já copiei
                </button>
              </div>
            ) : null}
            <TableWrap label="Credenciais">
              <table className="list" data-testid="credentials">
                <thead>
                  <tr>
                    <th scope="col">client_id</th>
                    <th scope="col">Criada em</th>
                    <th scope="col">Situação</th>
                    {isAdmin ? <th scope="col">Ações</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {data.credentials.map((c) => (
                    <tr key={c.id} data-client-id={c.client_id}>
                      <th scope="row">
                        <code>{c.client_id}</code>
                      </th>
                      <td>{when(c.created_at)}</td>
                      <td>
                        {c.revoked_at ? (
                          <Badge tone="bad">revogada {when(c.revoked_at)}</Badge>
                        ) : (
                          <Badge tone="ok">ativa</Badge>
                        )}
                      </td>
                      {isAdmin ? (
                        <td>
                          {c.revoked_at ? null : confirmRevoke === c.id ? (
                            <span className="row">
                              <button
                                type="button"
                                className="btn btn-small btn-danger"
                                disabled={busy}
                                onClick={() => revoke(c.id)}
                              >
                                Confirmar revogação <span className="sr-only">de {c.client_id}</span>
                              </button>
                              <button
                                type="button"
                                className="btn btn-small"
                                onClick={() => setConfirmRevoke(null)}
                              >
                                Cancelar
                              </button>
                            </span>
                          ) : (
                            <button
                              type="button"
                              className="btn btn-small btn-danger"
                              disabled={busy}
                              onClick={() => setConfirmRevoke(c.id)}
                            >
                              Revogar <span className="sr-only">{c.client_id}</span>
                            </button>
                          )}
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </section>

          <section className="panel" aria-labelledby="h-hooks">
            <h2 id="h-hooks">Webhooks (últimas 24 h)</h2>
            {data.webhook_endpoints.length === 0 ? (
              <p className="muted">Nenhum endpoint cadastrado.</p>
            ) : null}
            {data.webhook_endpoints.map((w) => {
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
                      <table className="list">
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
                          {w.failing.map((f, i) => (
                            <tr key={f.id ?? i}>
                              <td>{f.event_type ?? '—'}</td>
                              <td>{f.attempts ?? '—'}</td>
                              <td>{f.last_error ?? '—'}</td>
                              <td>{when(f.next_attempt_at)}</td>
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

          <section className="panel" aria-labelledby="h-plans">
            <h2 id="h-plans">Planos</h2>
            <ul className="plain-list">
              {data.plans.map((p) => (
                <li key={p.id}>
                  {p.name} <span className="muted">· {label(KIND_LABELS, p.kind)}</span>{' '}
                  {p.active === false ? <Badge tone="bad">inativo</Badge> : <Badge tone="ok">ativo</Badge>}{' '}
                  {p.is_default ? <Badge tone="info">padrão</Badge> : null}
                </li>
              ))}
            </ul>
          </section>
        </>
      ) : null}
    </>
  )
}
