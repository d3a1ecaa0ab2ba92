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
import { Bar } from 'react-chartjs-2'
import { brl, month, pct } from '../../format'
import { ChartPanel } from './ChartPanel'
import type { Dashboard } from './DashboardPage'

ChartJS.register(CategoryScale, LinearScale, BarElement, LineElement, PointElement, Tooltip, Legend)
ChartJS.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
ChartJS.defaults.color = '#334155'
ChartJS.defaults.animation = false

const BLUE = '#1d4ed8'
const TEAL = '#0f766e'
const AMBER = '#b45309'
const RED = '#b91c1c'
const GREEN = '#15803d'

/** Ledger rows without a contract have no plan (getDashboard). */
const planName = (row: Dashboard['loss_ratio'][number]) => row.plan_name ?? 'sem plano'

const moneyTick = (v: number | string) => brl(Number(v) * 100)

/** Premiums and claims per month, and the loss ratio per partner and plan. */
export function DashboardCharts({ data }: { data: Dashboard }) {
  const months = data.premiums.map((p) => month(p.month))
  const claimMonths = data.claims.map((c) => month(c.month))
  const lossRows = data.loss_ratio
  return (
    <>
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
        note="Sinistros pagos ÷ prêmios recebidos no período; a incorrida soma os aprovados ainda a pagar."
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
              labels: lossRows.map((r) => [r.partner_name, planName(r)]),
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
          rowData: (r) => ({ 'data-partner': r.partner_id, 'data-plan': r.plan_id ?? '' }),
          rowHeader: { header: 'Parceiro · plano', cell: (r) => `${r.partner_name} · ${planName(r)}` },
          columns: [
            { header: 'Prêmios rec.', cents: (r) => r.premiums_collected_cents },
            { header: 'Sinistros pagos', cents: (r) => r.claims_paid_cents },
            { header: 'Índice', text: (r) => pct(r.ratio) },
            { header: 'A pagar', cents: (r) => r.claims_owed_cents },
            { header: 'Incorrida', text: (r) => pct(r.incurred_ratio) },
          ],
          cards: true,
        }}
      />
    </>
  )
}
