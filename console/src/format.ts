const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
const integer = new Intl.NumberFormat('pt-BR')
const percent = new Intl.NumberFormat('pt-BR', {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
})
const dateTime = new Intl.DateTimeFormat('pt-BR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'UTC' })
const date = new Intl.DateTimeFormat('pt-BR', { dateStyle: 'short', timeZone: 'UTC' })
const MONTHS = ['jan', 'fev', 'mar', 'abr', 'mai', 'jun', 'jul', 'ago', 'set', 'out', 'nov', 'dez']

export const brl = (cents: number | null | undefined) => (cents == null ? '—' : money.format(cents / 100))
export const int = (n: number | null | undefined) => (n == null ? '—' : integer.format(n))
export const pct = (ratio: number | null | undefined) => (ratio == null ? '—' : percent.format(ratio))

export function when(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : `${dateTime.format(d)} UTC`
}

export function day(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso)
  return Number.isNaN(d.getTime()) ? iso : date.format(d)
}

/** The months' names in pt-BR ("janeiro" …), whatever the browser's language. */
export const MONTH_NAMES: readonly string[] = Array.from({ length: 12 }, (_, i) =>
  new Intl.DateTimeFormat('pt-BR', { month: 'long', timeZone: 'UTC' }).format(Date.UTC(2000, i, 1)),
)

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

export const STATUS_LABELS: Record<string, string> = {
  documents_pending: 'Aguardando documentos',
  under_review: 'Em análise',
  approved: 'Aprovado',
  denied: 'Negado',
  settled: 'Concluído',
  withdrawn: 'Desistência',
}

export const TYPE_LABELS: Record<string, string> = {
  robbery: 'Roubo',
  qualified_theft: 'Furto qualificado',
  accidental_damage: 'Quebra acidental',
  liquid_damage: 'Dano por líquido',
}

export const FRAUD_LABELS: Record<string, string> = {
  early_claim: 'Sinistro precoce (≤ 30 dias do início)',
  repeat_device: 'Aparelho com outro sinistro (24 meses)',
  repeat_customer: 'Cliente com 2+ sinistros (12 meses)',
  recent_card_change: 'Cartão trocado há ≤ 7 dias',
}

export const METHOD_LABELS: Record<string, string> = {
  repair: 'Reparo',
  replacement: 'Reposição',
  indemnity: 'Indenização',
}

export const DENIAL_LABELS: Record<string, string> = {
  not_covered: 'Não coberto',
  outside_coverage: 'Fora da vigência',
  late_notice: 'Aviso fora do prazo',
  documents_invalid: 'Documentos inválidos',
  fraud_suspected: 'Suspeita de fraude',
  other: 'Outro',
}

export const ROLE_LABELS: Record<string, string> = {
  admin: 'Administrador',
  adjuster: 'Regulador',
  viewer: 'Leitura',
}

export const KIND_LABELS: Record<string, string> = {
  subscription: 'Assinatura',
  annual: 'Plano anual',
  annual_plan: 'Plano anual',
}

export const DOC_LABELS: Record<string, string> = {
  photo: 'Foto',
  invoice: 'Nota fiscal',
  police_report: 'Boletim de ocorrência',
  id_document: 'Documento de identidade',
  other: 'Outro',
}

export const label = (map: Record<string, string>, key: string | null | undefined) =>
  key == null ? '—' : (map[key] ?? key)

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
