import { useQuery } from '@tanstack/react-query'
import { type Answer, get } from '../../api/client'
import { brl, DISPUTE_REASON_LABELS, DISPUTE_STATUS_LABELS, label, when } from '../../format'
import { navigate } from '../../router'
import { Badge, ErrorBox, Loading, PageTitle, statusTone, TableWrap } from '../../ui'

const STATUSES: Record<string, string> = { disputed: 'Em aberto', all: 'Todas' }

/** `#/disputas?status=`: chargebacks Stripe reported, the nearest evidence deadline first. */
export function DisputesPage({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? 'disputed'
  const {
    data: page,
    error,
    isLoading,
  } = useQuery({
    queryKey: ['disputes', status],
    queryFn: () =>
      get<Answer<'listConsoleDisputes'>>(
        '/api/disputes',
        status === 'all' ? { per_page: 100 } : { status, per_page: 100 },
      ),
  })
  const data = page?.data

  return (
    <>
      <PageTitle>Disputas</PageTitle>
      <fieldset className="tabs">
        <legend className="sr-only">Situação</legend>
        {Object.entries(STATUSES).map(([k, v]) => (
          <button
            type="button"
            key={k}
            className={`btn ${status === k ? 'btn-selected' : ''}`}
            aria-pressed={status === k}
            onClick={() => navigate('/disputas', { status: k })}
          >
            {v}
          </button>
        ))}
      </fieldset>
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {data ? (
        <TableWrap label="Disputas">
          <table className="list cards" data-testid="disputes">
            <thead>
              <tr>
                <th scope="col">Prazo para evidências</th>
                <th scope="col">Parceiro</th>
                <th scope="col">Contrato</th>
                <th scope="col">Pagamento</th>
                <th scope="col" className="num">
                  Valor
                </th>
                <th scope="col">Motivo</th>
                <th scope="col">Situação</th>
              </tr>
            </thead>
            <tbody>
              {data.length === 0 ? (
                <tr>
                  <td colSpan={7} className="muted">
                    Nenhuma disputa{status === 'disputed' ? ' em aberto' : ''}.
                  </td>
                </tr>
              ) : null}
              {data.map((d) => (
                <tr key={d.id} data-dispute={d.gateway_dispute_id}>
                  <th scope="row">{d.evidence_due_by ? when(d.evidence_due_by) : '—'}</th>
                  <td data-label="Parceiro">{d.partner.name}</td>
                  <td data-label="Contrato">
                    {/* One grid item under its label on a phone, the second line included. */}
                    <div>
                      {d.contract.policy_number ?? '—'}
                      <div className="small muted">
                        {d.contract.kind === 'annual_plan' ? 'plano anual' : 'assinatura'} {d.contract.id}
                      </div>
                    </div>
                  </td>
                  <td data-label="Pagamento">
                    <div>
                      {d.payment.installment_number === null
                        ? `Prêmio anual, pago em ${when(d.payment.paid_at)}`
                        : `Parcela ${d.payment.installment_number}, paga em ${when(d.payment.paid_at)}`}
                      {d.payment.gateway_payment_id ? (
                        <div className="small muted">Stripe {d.payment.gateway_payment_id}</div>
                      ) : null}
                    </div>
                  </td>
                  <td className="num" data-label="Valor">
                    {brl(d.amount_cents)}
                  </td>
                  <td data-label="Motivo">{label(DISPUTE_REASON_LABELS, d.reason)}</td>
                  <td data-label="Situação">
                    <Badge tone={statusTone(d.status)}>{label(DISPUTE_STATUS_LABELS, d.status)}</Badge>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </>
  )
}
