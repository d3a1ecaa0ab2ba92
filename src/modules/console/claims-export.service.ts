import type { Db } from '../../db/database.js'
import type { FraudSignal } from '../../db/tables/claim.js'
import { type CsvCell, csvFile, csvMoney, csvTime } from '../../shared/csv.js'
import {
  CLAIM_STATUS_LABELS,
  CONTRACT_KIND_LABELS,
  FRAUD_SIGNAL_LABELS,
  labelOf,
  PERIL_LABELS,
} from '../../shared/labels.js'
import { type ClaimExportRow, claimExportRows } from './claims-desk.repository.js'
import { type QueueQuery, queueFilterOf } from './claims-desk.service.js'

// The claims queue as a spreadsheet (OpenAPI operation exportDeskClaims): what the screen lists, in
// words and in the numbers people outside the console know.

export const CLAIMS_CSV_HEADER = [
  'Sinistro',
  'Parceiro',
  'Apólice',
  'Contrato no parceiro',
  'Cliente',
  'Aparelho',
  'IMEI/série',
  'Tipo',
  'Situação',
  'Ocorrido em',
  'Aberto em',
  'Decidido em',
  'Liquidado em',
  'Sinais de fraude',
  'LMI (R$)',
  'Franquia (R$)',
  'Valor aprovado (R$)',
  'Valor a pagar (R$)',
  'Responsável',
] as const

const instant = (stored: string | null) => (stored === null ? null : new Date(stored).toISOString())
const cents = (stored: number | string | null) => (stored === null ? null : Number(stored))

/** One claim's line, in the header's order. */
export function claimCsvRow(row: ClaimExportRow, zone: string): CsvCell[] {
  const kind = row.subscription_id === null ? 'annual_plan' : 'subscription'
  const signals = JSON.parse(row.fraud_signals) as FraudSignal[]
  return [
    row.number,
    row.partner_name,
    row.subscription_policy_number ?? row.annual_plan_policy_number,
    `${CONTRACT_KIND_LABELS[kind]} ${row.subscription_id ?? row.annual_plan_id}`,
    row.customer_name,
    row.model_name,
    row.serial_number,
    labelOf(PERIL_LABELS, row.type),
    labelOf(CLAIM_STATUS_LABELS, row.status),
    csvTime(instant(row.occurred_at), zone),
    csvTime(instant(row.created_at), zone),
    csvTime(instant(row.decided_at), zone),
    csvTime(instant(row.settled_at), zone),
    signals.map((signal) => labelOf(FRAUD_SIGNAL_LABELS, signal)).join(', '),
    csvMoney(cents(row.lmi)),
    csvMoney(cents(row.franchise)),
    csvMoney(cents(row.approved_amount)),
    csvMoney(cents(row.payable_amount)),
    row.assignee_email,
  ]
}

/** The queue's claims under the same filters as the list, every page, as CSV for Excel pt-BR. */
export function claimsCsv(db: Db, query: QueueQuery, me: number, zone: string): AsyncGenerator<string> {
  async function* lines() {
    for await (const row of claimExportRows(db, queueFilterOf(query, me))) yield claimCsvRow(row, zone)
  }
  return csvFile(CLAIMS_CSV_HEADER, lines())
}
