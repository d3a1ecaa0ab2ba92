import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { type Answer, get } from '../../api/client'
import { brl, int, pct, plural, zoneMonth } from '../../format'
import { href, navigate } from '../../router'
import { ErrorBox, Loading, PageTitle } from '../../ui'
import { DashboardCharts } from './DashboardCharts'
import { MonthPicker } from './MonthPicker'

export type Dashboard = Answer<'getDashboard'>

/** `#/painel`: the period's premiums, claims and loss ratio, each chart with its figures beside it. */
export function DashboardPage({ query }: { query: URLSearchParams }) {
  const from = query.get('from') ?? zoneMonth(-11)
  const to = query.get('to') ?? zoneMonth(0)
  const [draft, setDraft] = useState({ from, to })
  const { data, error, isLoading } = useQuery({
    queryKey: ['dashboard', from, to],
    queryFn: () => get<Dashboard>('/api/dashboard', { from, to }),
    placeholderData: keepPreviousData,
  })
  function apply(e: FormEvent) {
    e.preventDefault()
    navigate('/painel', draft)
  }

  return (
    <>
      <PageTitle>Painel</PageTitle>
      <form className="filters" onSubmit={apply} aria-label="Período">
        <MonthPicker label="De" value={draft.from} onChange={(from) => setDraft({ ...draft, from })} />
        <MonthPicker label="Até" value={draft.to} onChange={(to) => setDraft({ ...draft, to })} />
        <button type="submit" className="btn">
          Aplicar
        </button>
      </form>
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {data ? (
        <div className="dashboard">
          <Kpis data={data} />
          <OpenClaims data={data} />
          <DashboardCharts data={data} />
        </div>
      ) : null}
    </>
  )
}

function Kpis({ data }: { data: Dashboard }) {
  return (
    <section className="kpis" aria-label="Resumo do período">
      <div className="kpi">
        <span className="kpi-label">Prêmios emitidos</span>
        <strong data-testid="total-written">{brl(data.totals.written_cents)}</strong>
      </div>
      <div className="kpi">
        <span className="kpi-label">Prêmios recebidos</span>
        <strong data-testid="total-collected">{brl(data.totals.collected_cents)}</strong>
      </div>
      <div className="kpi">
        <span className="kpi-label">Sinistros pagos</span>
        <strong data-testid="total-claims-paid">{brl(data.totals.claims_paid_cents)}</strong>
      </div>
      <div className="kpi">
        <span className="kpi-label">Sinistralidade</span>
        <strong data-testid="total-ratio">{pct(data.totals.ratio)}</strong>
      </div>
      <div className="kpi">
        <span className="kpi-label">Sinistralidade incorrida</span>
        <strong data-testid="total-incurred-ratio">{pct(data.totals.incurred_ratio)}</strong>
        <span className="small muted">pagos + a pagar ({brl(data.totals.claims_owed_cents)})</span>
      </div>
      <div className="kpi">
        <span className="kpi-label">Proteções ativas</span>
        <strong data-testid="active-total">
          {int(data.active_protections.subscriptions + data.active_protections.annual_plans)}
        </strong>
        <span className="small muted">
          <span data-testid="active-subscriptions">{int(data.active_protections.subscriptions)}</span>{' '}
          assinaturas ·{' '}
          <span data-testid="active-annual-plans">{int(data.active_protections.annual_plans)}</span> planos
          anuais
        </span>
      </div>
    </section>
  )
}

/** Open claims now, whatever the period: money approved and not yet paid, and deadlines. */
function OpenClaims({ data }: { data: Dashboard }) {
  const { owed, overdue, due_this_week } = data.open_claims
  return (
    <section className="kpis" aria-label="Sinistros em aberto agora">
      <div className="kpi">
        <span className="kpi-label">A pagar (aprovados, não liquidados)</span>
        <strong data-testid="owed-total">{brl(owed.payable_cents)}</strong>
        <a className="small" href={href('/sinistros', { status: 'approved' })}>
          {plural(owed.count, 'sinistro', 'sinistros')}
        </a>
      </div>
      <div className="kpi">
        <span className="kpi-label">Sinistros atrasados</span>
        <strong data-testid="overdue-count">{int(overdue)}</strong>
        <a className="small" href={href('/sinistros', { status: 'open' })}>
          ver a fila por prazo
        </a>
      </div>
      <div className="kpi">
        <span className="kpi-label">Vencem esta semana</span>
        <strong data-testid="due-this-week-count">{int(due_this_week)}</strong>
        <span className="small muted">prazo hoje ou nos próximos 6 dias</span>
      </div>
    </section>
  )
}
