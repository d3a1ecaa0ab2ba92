import {
  BarElement,
  CategoryScale,
  Chart as ChartJS,
  Legend,
  LinearScale,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js'
import { type FormEvent, useState } from 'react'
import { Bar } from 'react-chartjs-2'
import { get } from '../api/client'
import type { Dashboard } from '../api/types'
import { brl, int, month, pct } from '../format'
import { navigate } from '../router'
import { ErrorBox, Loading, PageTitle, TableWrap, useLoad } from '../ui'

ChartJS.register(CategoryScale, LinearScale, BarElement, LineElement, PointElement, Tooltip, Legend)
ChartJS.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
ChartJS.defaults.color = '#334155'
ChartJS.defaults.animation = false

const BLUE = '#1d4ed8'
const TEAL = '#0f766e'
const AMBER = '#b45309'
const RED = '#b91c1c'
const GREEN = '#15803d'

function currentMonth(offset = 0): string {
  const d = new Date()
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1))
  return m.toISOString().slice(0, 7)
}

const moneyTick = (v: number | string) => brl(Number(v) * 100)

export function DashboardScreen({ query }: { query: URLSearchParams }) {
  const from = query.get('from') ?? currentMonth(-11)
  const to = query.get('to') ?? currentMonth(0)
  const [draft, setDraft] = useState({ from, to })
  const { data, error, loading } = useLoad(() => get<Dashboard>('/api/dashboard', { from, to }), [from, to])

  function apply(e: FormEvent) {
    e.preventDefault()
    navigate('/painel', draft)
  }

  return (
    <>
      <PageTitle>Painel</PageTitle>
      <form className="filters" onSubmit={apply} aria-label="Período">
        <label>
          De
          <input
            type="month"
            value={draft.from}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </label>
        <label>
          Até
          <input type="month" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        </label>
        <button type="submit" className="btn">
          Aplicar
        </button>
      </form>
      <ErrorBox error={error} />
      {loading && !data ? <Loading /> : null}
      {data ? <DashboardBody data={data} /> : null}
    </>
  )
}

function DashboardBody({ data }: { data: Dashboard }) {
  const months = data.premiums.map((p) => month(p.month))
  const claimMonths = data.claims.map((c) => month(c.month))
  const lossRows = data.loss_ratio
  return (
    <div className="dashboard">
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

      <section className="panel" aria-labelledby="h-premiums">
        <h2 id="h-premiums">Prêmios por mês</h2>
        <div className="chart-and-table">
          <div className="chart">
            <Bar
              role="img"
              aria-label="Gráfico de prêmios emitidos e recebidos por mês (os valores estão na tabela ao lado)"
              options={{
                maintainAspectRatio: false,
                scales: { y: { ticks: { callback: moneyTick } } },
                plugins: {
                  tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${brl(Number(c.raw) * 100)}` } },
                },
              }}
              data={{
                labels: months,
                datasets: [
                  {
                    label: 'Emitidos',
                    data: data.premiums.map((p) => p.written_cents / 100),
                    backgroundColor: BLUE,
                  },
                  {
                    label: 'Recebidos',
                    data: data.premiums.map((p) => p.collected_cents / 100),
                    backgroundColor: TEAL,
                  },
                ],
              }}
            />
          </div>
          <TableWrap label="Tabela de prêmios por mês">
            <table data-testid="premiums-table">
              <caption className="sr-only">Prêmios emitidos e recebidos por mês</caption>
              <thead>
                <tr>
                  <th scope="col">Mês</th>
                  <th scope="col" className="num">
                    Emitidos
                  </th>
                  <th scope="col" className="num">
                    Recebidos
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.premiums.map((p) => (
                  <tr key={p.month} data-month={p.month}>
                    <th scope="row">{month(p.month)}</th>
                    <td className="num" data-cents={p.written_cents}>
                      {brl(p.written_cents)}
                    </td>
                    <td className="num" data-cents={p.collected_cents}>
                      {brl(p.collected_cents)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </div>
      </section>

      <section className="panel" aria-labelledby="h-claims">
        <h2 id="h-claims">Sinistros por mês</h2>
        <div className="chart-and-table">
          <div className="chart">
            <Bar
              role="img"
              aria-label="Gráfico de sinistros abertos, aprovados, negados e liquidados por mês (os números estão na tabela ao lado)"
              options={{ maintainAspectRatio: false, scales: { y: { ticks: { precision: 0 } } } }}
              data={{
                labels: claimMonths,
                datasets: [
                  { label: 'Abertos', data: data.claims.map((c) => c.opened), backgroundColor: BLUE },
                  { label: 'Aprovados', data: data.claims.map((c) => c.approved), backgroundColor: GREEN },
                  { label: 'Negados', data: data.claims.map((c) => c.denied), backgroundColor: RED },
                  { label: 'Concluídos', data: data.claims.map((c) => c.settled), backgroundColor: AMBER },
                ],
              }}
            />
          </div>
          <TableWrap label="Tabela de sinistros por mês">
            <table data-testid="claims-table">
              <caption className="sr-only">Sinistros por mês e situação</caption>
              <thead>
                <tr>
                  <th scope="col">Mês</th>
                  <th scope="col" className="num">
                    Abertos
                  </th>
                  <th scope="col" className="num">
                    Aprov.
                  </th>
                  <th scope="col" className="num">
                    Neg.
                  </th>
                  <th scope="col" className="num">
                    Concl.
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.claims.map((c) => (
                  <tr key={c.month} data-month={c.month}>
                    <th scope="row">{month(c.month)}</th>
                    <td className="num">{int(c.opened)}</td>
                    <td className="num">{int(c.approved)}</td>
                    <td className="num">{int(c.denied)}</td>
                    <td className="num">{int(c.settled)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </div>
      </section>

      <section className="panel" aria-labelledby="h-loss">
        <h2 id="h-loss">Sinistralidade por parceiro e plano</h2>
        <p className="small muted">Sinistros pagos ÷ prêmios recebidos no período.</p>
        <div className="chart-and-table stacked">
          <div className="chart" style={{ height: `${Math.max(160, 36 * lossRows.length + 60)}px` }}>
            <Bar
              role="img"
              aria-label="Gráfico de sinistralidade por parceiro e plano (os valores estão na tabela ao lado)"
              options={{
                indexAxis: 'y',
                maintainAspectRatio: false,
                scales: { x: { ticks: { callback: (v) => pct(Number(v)) } } },
                plugins: {
                  legend: { display: false },
                  tooltip: { callbacks: { label: (c) => pct(Number(c.raw)) } },
                },
              }}
              data={{
                labels: lossRows.map((r) => [r.partner_name, r.plan_name]),
                datasets: [
                  {
                    label: 'Sinistralidade',
                    data: lossRows.map((r) => r.ratio ?? 0),
                    backgroundColor: lossRows.map((r) => ((r.ratio ?? 0) > 0.7 ? RED : TEAL)),
                  },
                ],
              }}
            />
          </div>
          <TableWrap label="Tabela de sinistralidade">
            <table data-testid="loss-table">
              <caption className="sr-only">Sinistralidade por parceiro e plano</caption>
              <thead>
                <tr>
                  <th scope="col">Parceiro · plano</th>
                  <th scope="col" className="num">
                    Prêmios rec.
                  </th>
                  <th scope="col" className="num">
                    Sinistros pagos
                  </th>
                  <th scope="col" className="num">
                    Índice
                  </th>
                </tr>
              </thead>
              <tbody>
                {lossRows.length === 0 ? (
                  <tr>
                    <td colSpan={4} className="muted">
                      Nenhum prêmio nem sinistro no período.
                    </td>
                  </tr>
                ) : null}
                {lossRows.map((r) => (
                  <tr key={`${r.partner_id}-${r.plan_id}`} data-partner={r.partner_id} data-plan={r.plan_id}>
                    <th scope="row">
                      {r.partner_name} · {r.plan_name}
                    </th>
                    <td className="num" data-cents={r.premiums_collected_cents}>
                      {brl(r.premiums_collected_cents)}
                    </td>
                    <td className="num" data-cents={r.claims_paid_cents}>
                      {brl(r.claims_paid_cents)}
                    </td>
                    <td className="num">{pct(r.ratio)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </div>
      </section>
    </div>
  )
}
