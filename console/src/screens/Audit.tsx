import { type FormEvent, useState } from 'react'
import { get } from '../api/client'
import type { AuditEntry, Page } from '../api/types'
import { when } from '../format'
import { navigate } from '../router'
import { ErrorBox, Loading, Pager, PageTitle, TableWrap, useLoad } from '../ui'

function who(operator: AuditEntry['operator'] | undefined): string {
  if (operator == null) return '—'
  if (typeof operator === 'string') return operator
  return operator.email ?? (operator.cli ? `CLI (${operator.cli})` : '—')
}

function short(value: unknown): string {
  if (value == null) return '—'
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 160 ? `${text.slice(0, 157)}…` : text
}

export function AuditScreen({ query }: { query: URLSearchParams }) {
  const page = Number(query.get('page') ?? '1') || 1
  const action = query.get('action') ?? ''
  const operator = query.get('operator') ?? ''
  const [draft, setDraft] = useState({ action, operator })
  const { data, error, loading } = useLoad(
    () => get<Page<AuditEntry>>('/api/audit', { page, per_page: 50, action, operator }),
    [page, action, operator],
  )
  const csv = `/api/audit.csv?${new URLSearchParams(
    Object.entries({ action, operator }).filter(([, v]) => v),
  ).toString()}`

  function apply(e: FormEvent) {
    e.preventDefault()
    navigate('/auditoria', draft)
  }

  return (
    <>
      <PageTitle
        actions={
          <a className="btn" href={csv} download>
            Exportar CSV
          </a>
        }
      >
        Auditoria
      </PageTitle>
      <form className="filters" onSubmit={apply} aria-label="Filtros">
        <label>
          Ação
          <input
            value={draft.action}
            onChange={(e) => setDraft({ ...draft, action: e.target.value })}
            placeholder="claim.approve"
          />
        </label>
        <label>
          Operador
          <input
            value={draft.operator}
            onChange={(e) => setDraft({ ...draft, operator: e.target.value })}
            placeholder="e-mail"
          />
        </label>
        <button type="submit" className="btn">
          Filtrar
        </button>
      </form>
      <ErrorBox error={error} />
      {loading && !data ? <Loading /> : null}
      {data ? (
        <>
          <TableWrap label="Registro de auditoria">
            <table className="list audit" data-testid="audit">
              <thead>
                <tr>
                  <th scope="col">Quando</th>
                  <th scope="col">Quem</th>
                  <th scope="col">Ação</th>
                  <th scope="col">Registro</th>
                  <th scope="col">Antes → depois</th>
                  <th scope="col">De onde</th>
                </tr>
              </thead>
              <tbody>
                {data.data.length === 0 ? (
                  <tr>
                    <td colSpan={6} className="muted">
                      Nenhuma ação registrada.
                    </td>
                  </tr>
                ) : null}
                {data.data.map((a) => (
                  <tr key={a.id}>
                    <td>{when(a.at ?? a.created_at)}</td>
                    <td>{a.actor_label ?? who(a.operator)}</td>
                    <td>
                      <code>{a.action}</code>
                    </td>
                    <td>
                      {a.record_type} {a.record_id}
                    </td>
                    <td className="wrap small">
                      <code>{short(a.before)}</code> → <code>{short(a.after)}</code>
                    </td>
                    <td>{a.ip ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <Pager
            page={data.current_page}
            lastPage={data.last_page}
            total={data.total}
            onPage={(p) => navigate('/auditoria', { action, operator, page: String(p) })}
          />
        </>
      ) : null}
    </>
  )
}
