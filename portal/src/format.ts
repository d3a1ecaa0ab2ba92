// How the portal writes money and dates for a person in Brazil; labels from the one table.
export {
  CLAIM_STATUS_LABELS,
  DENIAL_REASON_LABELS,
  DOCUMENT_KIND_LABELS,
  PERIL_LABELS,
  SETTLEMENT_METHOD_LABELS,
} from '../../src/shared/labels'

const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })

export const reais = (amount: number | null | undefined) => (amount == null ? '—' : money.format(amount))

/** 'YYYY-MM-DD' → 'DD/MM/AAAA'. */
export function day(date: string | null | undefined): string {
  if (!date) return '—'
  const [y, m, d] = date.slice(0, 10).split('-')
  return `${d}/${m}/${y}`
}

/** 'YYYY-MM-DD HH:MM:SS' (already in the service's zone) → 'DD/MM/AAAA HH:MM'. */
export function moment(timestamp: string | null | undefined): string {
  if (!timestamp) return '—'
  return `${day(timestamp)} ${timestamp.slice(11, 16)}`
}

export const bytes = (n: number) =>
  n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`
