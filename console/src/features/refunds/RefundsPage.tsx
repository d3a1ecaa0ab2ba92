import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { type Answer, get, post } from '../../api/client'
import { brl, deliveryErrorLabel, label, REFUND_STATUS_LABELS, when } from '../../format'
import { navigate } from '../../router'
import { useCan } from '../../session'
import { Badge, ErrorBox, Loading, Notice, PageTitle, statusTone, TableWrap, useFocusOn } from '../../ui'

const STATUSES: Record<string, string> = { failed: 'Com falha', pending: 'Pendentes' }
type Refund = Answer<'listConsoleRefunds'>['data'][number]

/** `#/reembolsos?status=`: annual plans' refunds that failed or wait for a retry; an admin retries one. */
export function RefundsPage({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? 'failed'
  const isAdmin = useCan('admin')
  const queryClient = useQueryClient()
  const {
    data: page,
    error,
    isLoading,
  } = useQuery({
    queryKey: ['refunds', status],
    queryFn: () => get<Answer<'listConsoleRefunds'>>('/api/refunds', { status }),
  })
  const data = page?.data
  const [notice, setNotice] = useState<string | null>(null)
  // The retried row may leave the list: the focus goes to the result.
  const noticeRef = useFocusOn<HTMLDivElement>(notice)
  const retry = useMutation({
    mutationFn: (refund: Refund) => post<Answer<'retryConsoleRefund'>>(`/api/refunds/${refund.id}/retry`),
    onMutate: () => setNotice(null),
    onSuccess: (after, refund) => {
      setNotice(
        `Reembolso ${refund.id}: nova tentativa feita (${label(REFUND_STATUS_LABELS, after.status).toLowerCase()}).`,
      )
      // The answer is the refund alone; the list (which it may leave) is read again.
      void queryClient.invalidateQueries({ queryKey: ['refunds'] })
    },
  })
  const busy = retry.isPending ? retry.variables.id : null

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
      {notice ? <Notice ref={noticeRef}>{notice}</Notice> : null}
      <ErrorBox error={retry.error} />
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {data ? (
        <TableWrap label="Reembolsos">
          <table className="list cards" data-testid="refunds">
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
                  <td data-label="Contrato">{r.policy_number ?? `plano anual ${r.annual_plan_id}`}</td>
                  <td data-label="Parceiro">{r.partner.name}</td>
                  <td data-label="Cliente">{r.customer_name}</td>
                  <td className="num" data-label="Valor">
                    {brl(r.amount_cents)}
                  </td>
                  <td data-label="Situação">
                    <Badge tone={statusTone(r.status)}>{label(REFUND_STATUS_LABELS, r.status)}</Badge>
                  </td>
                  <td data-label="Tentativas">{r.attempts}</td>
                  <td className="wrap" data-label="Último erro">
                    {deliveryErrorLabel(r.last_error)}
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
                          onClick={() => retry.mutate(r)}
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
