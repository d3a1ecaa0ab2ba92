import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { type Answer, get } from '../../api/client'
import { AUDIT_ACTION_LABELS, AUDIT_RECORD_LABELS, label, when } from '../../format'
import { navigate } from '../../router'
import { ErrorBox, Loading, Pager, PageTitle, TableWrap } from '../../ui'

function short(value: unknown): string {
  if (value == null) return '—'
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 160 ? `${text.slice(0, 157)}…` : text
}

/** `#/auditoria`: every audited change, newest first, filtered by action and operator (admins). */
export function AuditPage({ query }: { query: URLSearchParams }) {
  const page = Number(query.get('page') ?? '1') || 1
  const action = query.get('action') ?? ''
  const operator = query.get('operator') ?? ''
  const [draft, setDraft] = useState({ action, operator })
  const { data, error, isLoading } = useQuery({
    queryKey: ['audit', page, action, operator],
    queryFn: () => get<Answer<'listAudit'>>('/api/audit', { page, per_page: 50, action, operator }),
    placeholderData: keepPreviousData,
  })
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
          <select value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
            <option value="">Todas</option>
            {Object.entries(AUDIT_ACTION_LABELS).map(([code, text]) => (
              <option key={code} value={code}>
                {text}
              </option>
            ))}
          </select>
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
      {isLoading ? <Loading /> : null}
      {data ? (
        <>
          <TableWrap label="Registro de auditoria">
            <table className="list audit cards" data-testid="audit">
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
                    <td data-label="Quando">{when(a.at)}</td>
                    <td data-label="Quem">{a.actor_label}</td>
                    <td data-label="Ação">{label(AUDIT_ACTION_LABELS, a.action)}</td>
                    <td data-label="Registro">
                      {label(AUDIT_RECORD_LABELS, a.record_type)} {a.record_id}
                    </td>
                    <td className="wrap small" data-label="Antes → depois">
                      <span>
                        <code>{short(a.before)}</code> → <code>{short(a.after)}</code>
                      </span>
                    </td>
                    <td data-label="De onde">{a.ip ?? '—'}</td>
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
