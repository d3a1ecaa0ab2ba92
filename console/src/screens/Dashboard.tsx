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
import { type FormEvent, Fragment, type ReactNode, useState } from 'react'
import { Bar } from 'react-chartjs-2'
import { get } from '../api/client'
import type { Dashboard } from '../api/types'
import { brl, int, MONTH_NAMES, month, pct } from '../format'
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

/** The years the period can start or end in: from the service's first till next year. */
const FIRST_YEAR = 2024

/**
 * A month as two lists, month names in pt-BR and years: `<input type="month">` would follow the
 * browser's own language (Chromium's picker), not the console's.
 */
function MonthPicker({
  label,
  value,
  onChange,
}: {
  label: string
  value: string
  onChange: (ym: string) => void
}) {
  const [year = '', mon = ''] = value.split('-')
  const last = new Date().getUTCFullYear() + 1
  const years = Array.from({ length: last - FIRST_YEAR + 1 }, (_, i) => String(FIRST_YEAR + i))
  if (year && !years.includes(year)) years.unshift(year)
  return (
    <fieldset className="month-picker">
      <legend>{label}</legend>
      <select
        aria-label={`${label}: mês`}
        value={mon}
        onChange={(e) => onChange(`${year}-${e.target.value}`)}
      >
        {MONTH_NAMES.map((name, i) => {
          const code = String(i + 1).padStart(2, '0')
          return (
            <option key={code} value={code}>
              {name}
            </option>
          )
        })}
      </select>
      <select
        aria-label={`${label}: ano`}
        value={year}
        onChange={(e) => onChange(`${e.target.value}-${mon}`)}
      >
        {years.map((y) => (
          <option key={y} value={y}>
            {y}
          </option>
        ))}
      </select>
    </fieldset>
  )
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
        <MonthPicker label="De" value={draft.from} onChange={(from) => setDraft({ ...draft, from })} />
        <MonthPicker label="Até" value={draft.to} onChange={(to) => setDraft({ ...draft, to })} />
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

      <ChartPanel
        id="h-premiums"
        title="Prêmios por mês"
        chart={
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
        }
        table={{
          testId: 'premiums-table',
          label: 'Tabela de prêmios por mês',
          caption: 'Prêmios emitidos e recebidos por mês',
          rows: data.premiums,
          rowKey: (p) => p.month,
          rowData: (p) => ({ 'data-month': p.month }),
          rowHeader: { header: 'Mês', cell: (p) => month(p.month) },
          columns: [
            { header: 'Emitidos', cents: (p) => p.written_cents },
            { header: 'Recebidos', cents: (p) => p.collected_cents },
          ],
        }}
      />

      <ChartPanel
        id="h-claims"
        title="Sinistros por mês"
        chart={
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
        }
        table={{
          testId: 'claims-table',
          label: 'Tabela de sinistros por mês',
          caption: 'Sinistros por mês e situação',
          rows: data.claims,
          rowKey: (c) => c.month,
          rowData: (c) => ({ 'data-month': c.month }),
          rowHeader: { header: 'Mês', cell: (c) => month(c.month) },
          columns: [
            { header: 'Abertos', count: (c) => c.opened },
            { header: 'Aprov.', count: (c) => c.approved },
            { header: 'Neg.', count: (c) => c.denied },
            { header: 'Concl.', count: (c) => c.settled },
          ],
        }}
      />

      <ChartPanel
        id="h-loss"
        title="Sinistralidade por parceiro e plano"
        note="Sinistros pagos ÷ prêmios recebidos no período."
        stacked
        chartHeight={Math.max(160, 36 * lossRows.length + 60)}
        chart={
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
        }
        table={{
          testId: 'loss-table',
          label: 'Tabela de sinistralidade',
          caption: 'Sinistralidade por parceiro e plano',
          rows: lossRows,
          empty: 'Nenhum prêmio nem sinistro no período.',
          rowKey: (r) => `${r.partner_id}-${r.plan_id}`,
          rowData: (r) => ({ 'data-partner': r.partner_id, 'data-plan': r.plan_id }),
          rowHeader: { header: 'Parceiro · plano', cell: (r) => `${r.partner_name} · ${r.plan_name}` },
          columns: [
            { header: 'Prêmios rec.', cents: (r) => r.premiums_collected_cents },
            { header: 'Sinistros pagos', cents: (r) => r.claims_paid_cents },
            { header: 'Índice', text: (r) => pct(r.ratio) },
          ],
        }}
      />
    </div>
  )
}

/** A figure column: money (cents, its value kept in `data-cents`), a count, or text already formatted. */
type FigureColumn<Row> = { header: string } & (
  | { cents: (row: Row) => number }
  | { count: (row: Row) => number }
  | { text: (row: Row) => string }
)

function figureCell<Row>(column: FigureColumn<Row>, row: Row) {
  if ('cents' in column) {
    const cents = column.cents(row)
    return (
      <td className="num" data-cents={cents}>
        {brl(cents)}
      </td>
    )
  }
  return <td className="num">{'count' in column ? int(column.count(row)) : column.text(row)}</td>
}

interface FigureTable<Row> {
  testId: string
  label: string
  caption: string
  rows: Row[]
  /** Shown as the only row when there is none. */
  empty?: string
  rowKey: (row: Row) => string
  /** The row's `data-*` attributes, which the browser tests read. */
  rowData: (row: Row) => Record<`data-${string}`, string | number>
  rowHeader: { header: string; cell: (row: Row) => string }
  columns: FigureColumn<Row>[]
}

/**
 * A chart with its figures in a table beside it (docs/decisions.md, Operator console UI): the
 * table is what screen readers, tests and copy-paste use, the chart is for the eye.
 */
function ChartPanel<Row>({
  id,
  title,
  note,
  stacked = false,
  chartHeight,
  chart,
  table,
}: {
  id: string
  title: string
  note?: string
  stacked?: boolean
  chartHeight?: number
  chart: ReactNode
  table: FigureTable<Row>
}) {
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {note ? <p className="small muted">{note}</p> : null}
      <div className={stacked ? 'chart-and-table stacked' : 'chart-and-table'}>
        <div className="chart" style={chartHeight ? { height: `${chartHeight}px` } : undefined}>
          {chart}
        </div>
        <TableWrap label={table.label}>
          <table data-testid={table.testId}>
            <caption className="sr-only">{table.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{table.rowHeader.header}</th>
                {table.columns.map((column) => (
                  <th key={column.header} scope="col" className="num">
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.length === 0 && table.empty ? (
                <tr>
                  <td colSpan={table.columns.length + 1} className="muted">
                    {table.empty}
                  </td>
                </tr>
              ) : null}
              {table.rows.map((row) => (
                <tr key={table.rowKey(row)} {...table.rowData(row)}>
                  <th scope="row">{table.rowHeader.cell(row)}</th>
                  {table.columns.map((column) => (
                    <Fragment key={column.header}>{figureCell(column, row)}</Fragment>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </div>
    </section>
  )
}
