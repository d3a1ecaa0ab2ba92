import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { type Answer, get } from '../../api/client'
import { CLAIM_STATUS_LABELS, deviceText, label, PERIL_LABELS } from '../../format'
import { href, navigate } from '../../router'
import { useOperator } from '../../session'
import { Badge, ErrorBox, Loading, Pager, PageTitle, statusTone, TableWrap } from '../../ui'
import { partnersQuery } from '../partners/partners.queries'
import { AgeCell, AmountCell, DeadlineCell, FraudCell } from './QueueCells'
import { useQueueKeys } from './queue-keys'

const FILTERS = ['status', 'type', 'partner_id', 'fraud', 'assignee'] as const

/** Every status, closed ones included: the API's list without a status. */
const ALL = 'all'

/**
 * `#/sinistros`: the queue filtered from the URL. It opens on the open claims, the nearest deadline
 * first; "Todas" lists closed ones too, oldest first.
 */
export function ClaimsPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >
  filters.status ||= 'open'
  const byDeadline = filters.status !== ALL && !['denied', 'settled', 'withdrawn'].includes(filters.status)
  const page = Number(query.get('page') ?? '1') || 1
  const claims = useQuery({
    queryKey: ['claims', filters, page],
    queryFn: () =>
      get<Answer<'listDeskClaims'>>('/api/claims', {
        ...filters,
        status: filters.status === ALL ? '' : filters.status,
        page,
      }),
    // The rows of the last filter stay on screen until the new ones come.
    placeholderData: keepPreviousData,
  })
  const partners = useQuery(partnersQuery)
  const me = useOperator()
  const queue = useQueueKeys(claims.data?.data.map((c) => c.id) ?? [])

  function set(name: string, value: string) {
    navigate('/sinistros', { ...filters, [name]: value, page: undefined })
  }

  // The file holds every claim under the screen's filters, not only this page.
  const csv = `/api/claims.csv?${new URLSearchParams(Object.entries(filters).filter(([, v]) => v)).toString()}`

  return (
    <>
      <PageTitle
        actions={
          <a className="btn" href={csv} download>
            Exportar CSV
          </a>
        }
      >
        Sinistros
      </PageTitle>
      <form className="filters" aria-label="Filtros" onSubmit={(e) => e.preventDefault()}>
        <label>
          Situação
          <select value={filters.status} onChange={(e) => set('status', e.target.value)}>
            <option value="open">Em aberto (a decidir ou liquidar)</option>
            <option value={ALL}>Todas</option>
            {Object.entries(CLAIM_STATUS_LABELS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tipo
          <select value={filters.type} onChange={(e) => set('type', e.target.value)}>
            <option value="">Todos</option>
            {Object.entries(PERIL_LABELS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          Parceiro
          <select value={filters.partner_id} onChange={(e) => set('partner_id', e.target.value)}>
            <option value="">Todos</option>
            {partners.data?.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Responsável
          <select value={filters.assignee} onChange={(e) => set('assignee', e.target.value)}>
            <option value="">Todos</option>
            <option value="me">Meus sinistros</option>
            <option value="none">Sem responsável</option>
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={filters.fraud === 'true'}
            onChange={(e) => set('fraud', e.target.checked ? 'true' : '')}
          />
          Só com sinal de fraude
        </label>
      </form>
      <ErrorBox error={claims.error} />
      {claims.isLoading ? <Loading /> : null}
      {claims.data ? (
        <>
          <TableWrap label="Fila de sinistros">
            <table
              className="list cards queue"
              data-testid="claims-queue"
              ref={queue.tableRef}
              onFocus={queue.onFocus}
            >
              <caption className="sr-only">
                {byDeadline
                  ? 'Fila de sinistros, o prazo mais próximo primeiro'
                  : 'Fila de sinistros, os mais antigos primeiro'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Sinistro · situação</th>
                  <th scope="col">Prazo</th>
                  <th scope="col">Idade</th>
                  <th scope="col">Valor</th>
                  <th scope="col">Cliente</th>
                  <th scope="col">Parceiro</th>
                  <th scope="col">Fraude</th>
                  <th scope="col">Responsável</th>
                </tr>
              </thead>
              <tbody>
                {claims.data.data.length === 0 ? (
                  <tr>
                    <td colSpan={8} className="muted">
                      Nenhum sinistro com esses filtros.
                    </td>
                  </tr>
                ) : null}
                {claims.data.data.map((c) => (
                  <tr
                    key={c.id}
                    data-claim={c.id}
                    aria-selected={queue.selected === c.id}
                    className={c.deadline?.state === 'overdue' ? 'overdue' : undefined}
                  >
                    <th scope="row">
                      <a href={href(`/sinistros/${c.id}`)}>{c.number}</a>
                      <div className="small muted">{label(PERIL_LABELS, c.type)}</div>
                      <Badge tone={statusTone(c.status)}>{c.status_label}</Badge>
                    </th>
                    <td data-label="Prazo">
                      <DeadlineCell claim={c} />
                    </td>
                    <td data-label="Idade">
                      <AgeCell claim={c} />
                    </td>
                    <td data-label="Valor">
                      <AmountCell claim={c} />
                    </td>
                    <td data-label="Cliente">
                      <div>
                        {c.customer_name}
                        <div className="small muted">{deviceText(c.device)}</div>
                      </div>
                    </td>
                    <td data-label="Parceiro">{c.partner.name}</td>
                    <td className="wrap" data-label="Fraude">
                      <FraudCell claim={c} />
                    </td>
                    <td className="wrap-any" data-label="Responsável">
                      {c.assignee === null ? (
                        <span className="muted">Sem responsável</span>
                      ) : c.assignee.id === me.id ? (
                        'Você'
                      ) : (
                        c.assignee.email
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <Pager
            page={claims.data.current_page}
            lastPage={claims.data.last_page}
            total={claims.data.total}
            onPage={(p) => navigate('/sinistros', { ...filters, page: String(p) })}
          />
        </>
      ) : null}
    </>
  )
}
