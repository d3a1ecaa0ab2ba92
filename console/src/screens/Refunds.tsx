import { useState } from 'react'
import { get, post } from '../api/client'
import type { Page, Refund } from '../api/types'
import { brl, when } from '../format'
import { navigate } from '../router'
import { useCan } from '../session'
import { Badge, ErrorBox, Loading, Notice, PageTitle, statusTone, TableWrap, useLoad } from '../ui'

const STATUSES: Record<string, string> = { failed: 'Com falha', pending: 'Pendentes' }
const REFUND_LABELS: Record<string, string> = { failed: 'falhou', pending: 'pendente', succeeded: 'pago' }

export function RefundsScreen({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? 'failed'
  const isAdmin = useCan('admin')
  const { data, error, loading, reload } = useLoad(
    () =>
      get<Refund[] | Page<Refund>>('/api/refunds', { status }).then((r) => (Array.isArray(r) ? r : r.data)),
    [status],
  )
  const [actionError, setActionError] = useState<unknown>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [busy, setBusy] = useState<number | null>(null)

  async function retry(refund: Refund) {
    setBusy(refund.id)
    setActionError(null)
    setNotice(null)
    try {
      const after = await post<Refund>(`/api/refunds/${refund.id}/retry`)
      setNotice(`Reembolso ${refund.id}: nova tentativa feita (${after?.status ?? 'enviado'}).`)
      reload()
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(null)
    }
  }

  return (
    <>
      <PageTitle>Reembolsos</PageTitle>
      <fieldset className="tabs">
        <legend className="sr-only">Situação</legend>
        {Object.entries(STATUSES).map(([k, v]) => (
          <button
            type="button"
            key={k}
            className={`btn ${status === k ? 'btn-selected' : ''}`}
            aria-pressed={status === k}
            onClick={() => navigate('/reembolsos', { status: k })}
          >
            {v}
          </button>
        ))}
      </fieldset>
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBox error={actionError} />
      <ErrorBox error={error} />
      {loading && !data ? <Loading /> : null}
      {data ? (
        <TableWrap label="Reembolsos">
          <table className="list" data-testid="refunds">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Contrato</th>
                <th scope="col">Parceiro</th>
                <th scope="col">Cliente</th>
                <th scope="col" className="num">
                  Valor
                </th>
                <th scope="col">Situação</th>
                <th scope="col">Tentativas</th>
                <th scope="col">Último erro</th>
                {isAdmin ? <th scope="col">Ações</th> : null}
              </tr>
            </thead>
            <tbody>
              {data.length === 0 ? (
                <tr>
                  <td colSpan={9} className="muted">
                    Nenhum reembolso {status === 'failed' ? 'com falha' : 'pendente'}.
                  </td>
                </tr>
              ) : null}
              {data.map((r) => (
                <tr key={r.id} data-refund={r.id}>
                  <th scope="row">{r.id}</th>
                  <td>{r.policy_number ?? (r.annual_plan_id ? `plano anual ${r.annual_plan_id}` : '—')}</td>
                  <td>{r.partner?.name ?? '—'}</td>
                  <td>{r.customer_name ?? '—'}</td>
                  <td className="num">{brl(r.amount_cents)}</td>
                  <td>
                    <Badge tone={statusTone(r.status)}>{REFUND_LABELS[r.status] ?? r.status}</Badge>
                  </td>
                  <td>{r.attempts ?? '—'}</td>
                  <td className="wrap">
                    {r.last_error ?? '—'}
                    {r.status === 'pending' ? (
                      <div className="small muted">próxima tentativa {when(r.next_attempt_at)}</div>
                    ) : null}
                  </td>
                  {isAdmin ? (
                    <td>
                      {r.status === 'failed' ? (
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={busy != null}
                          onClick={() => retry(r)}
                        >
                          {busy === r.id ? 'Tentando…' : 'Tentar de novo'}
                          <span className="sr-only"> o reembolso {r.id}</span>
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </>
  )
}
