import {
  ANNUAL_PLAN_STATUS_LABELS,
  CONTRACT_KIND_LABELS,
  labelOf,
  SUBSCRIPTION_STATUS_LABELS,
} from '../../src/shared/labels'

// Every label the console shows comes from the server's one table (src/shared/labels.ts), built
// into the bundle: the same words as the API's `*_label` fields and the certificate.
export * from '../../src/shared/labels'
export const label = labelOf

const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
const integer = new Intl.NumberFormat('pt-BR')
const percent = new Intl.NumberFormat('pt-BR', {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
})
const MONTHS = ['jan', 'fev', 'mar', 'abr', 'mai', 'jun', 'jul', 'ago', 'set', 'out', 'nov', 'dez']

// Times are shown in the service's zone (AMPARO_TIMEZONE), which the session answer carries: an
// operator in any browser reads the claim's 23:59 as the insured and the police report do.
let zone = 'America/Sao_Paulo'
let dateTime = formatter(zone, { dateStyle: 'short', timeStyle: 'short' })
let date = formatter(zone, { dateStyle: 'short' })

function formatter(timeZone: string, options: Intl.DateTimeFormatOptions) {
  return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone })
}

/** The service's zone, from GET /api/session or the sign-in's answer. */
export function setTimeZone(timeZone: string) {
  try {
    dateTime = formatter(timeZone, { dateStyle: 'short', timeStyle: 'short' })
    date = formatter(timeZone, { dateStyle: 'short' })
    zone = timeZone
  } catch {
    // A zone this browser does not know keeps the default rather than breaking every screen.
  }
}

/** This month in the service's zone, `YYYY-MM`, moved by `offset` months. */
export function zoneMonth(offset = 0, now = new Date()): string {
  const parts = formatter(zone, { year: 'numeric', month: '2-digit' }).formatToParts(now)
  const year = Number(parts.find((p) => p.type === 'year')?.value)
  const m = Number(parts.find((p) => p.type === 'month')?.value)
  const index = year * 12 + (m - 1) + offset
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`
}

export const brl = (cents: number | null | undefined) => (cents == null ? '—' : money.format(cents / 100))
export const int = (n: number | null | undefined) => (n == null ? '—' : integer.format(n))
export const pct = (ratio: number | null | undefined) => (ratio == null ? '—' : percent.format(ratio))

export function when(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d)
}

/** A calendar date (`YYYY-MM-DD`, already the zone's) as it is, or an instant's date in the zone. */
export function day(iso: string | null | undefined): string {
  if (!iso) return '—'
  const calendar = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso)
  if (calendar) return `${calendar[3]}/${calendar[2]}/${calendar[1]}`
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : date.format(d)
}

/** The months' names in pt-BR ("janeiro" …), whatever the browser's language. */
export const MONTH_NAMES: readonly string[] = [
  'janeiro',
  'fevereiro',
  'março',
  'abril',
  'maio',
  'junho',
  'julho',
  'agosto',
  'setembro',
  'outubro',
  'novembro',
  'dezembro',
]

/** "2026-03" → "mar/2026". */
export function month(ym: string): string {
  const [year, m] = ym.split('-')
  const name = MONTHS[Number(m) - 1]
  return year && name ? `${name}/${year}` : ym
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace('.', ',')} KB`
  return `${(n / 1024 / 1024).toFixed(1).replace('.', ',')} MB`
}

/** Reais typed by a person ("1.234,56", "1234.56", "1234") → cents, or null. */
export function parseReais(text: string): number | null {
  let t = text
    .trim()
    .replace(/^R\$\s*/, '')
    .replace(/\s/g, '')
  if (t === '') return null
  if (t.includes(',')) t = t.replace(/\./g, '').replace(',', '.')
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return null
  const [whole, frac = ''] = t.split('.')
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'))
}

/**
 * A contract as people name it: its policy number, and beside it the id the partner's API uses
 * with the partner ("Assinatura 5 · Loja Demo"), which is what the partner's own systems show.
 */
export function contractNames(
  contract: { kind: string; id: number; policy_number: string | null },
  partner: string,
) {
  return {
    policy: contract.policy_number ?? 'Sem apólice (antes do pagamento)',
    partnerRef: `${labelOf(CONTRACT_KIND_LABELS, contract.kind)} ${contract.id} · ${partner}`,
  }
}

/** A contract's status in words: a subscription's and an annual plan's codes differ. */
export function contractStatus(kind: string, status: string): string {
  return labelOf(kind === 'subscription' ? SUBSCRIPTION_STATUS_LABELS : ANNUAL_PLAN_STATUS_LABELS, status)
}

/** A device as the console's answers carry it (a claim's has its brand too). */
export function deviceText(device: {
  brand?: string
  model: { name: string }
  serial_number: string | null
}): string {
  const name = [device.brand, device.model.name].filter(Boolean).join(' ')
  const id = device.serial_number ? `IMEI/série ${device.serial_number}` : ''
  return [name, id].filter(Boolean).join(' · ') || '—'
}
