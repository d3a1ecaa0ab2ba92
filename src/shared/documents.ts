// Pure normalisers for Brazilian documents and related identifiers. Each returns the bare
// canonical value, or null when the input is not valid; none of them throws.

type Weight = (length: number, index: number) => number

// CPF weights run 10..2 (first check digit) and 11..2 (second): length + 1 down to 2.
const cpfWeight: Weight = (length, index) => length + 1 - index

// CNPJ weights cycle 2..9 from the right: 5,4,3,2,9,8,7,6,5,4,3,2 then 6,5,4,3,2,9,8,...
const cnpjWeight: Weight = (length, index) => ((length - 1 - index) % 8) + 2

const DOCUMENT_SEPARATORS = /[./\-\s]/g
const DIGIT_SEPARATORS = /[\s-]/g
const CEP_SEPARATORS = /[.\s-]/g
const PHONE_SEPARATORS = /[().\s-]/g

// Code point - 48 makes '0'..'9' worth 0..9 and 'A'..'Z' worth 17..42, as the
// alphanumeric CNPJ rules require; plain digits are unaffected.
function charValues(value: string): number[] {
  return [...value].map((char) => char.charCodeAt(0) - 48)
}

function mod11CheckDigit(values: readonly number[], weight: Weight): number {
  const sum = values.reduce((acc, value, index) => acc + value * weight(values.length, index), 0)
  const remainder = sum % 11
  return remainder < 2 ? 0 : 11 - remainder
}

// The last two positions are check digits, each computed over everything before it.
function hasValidCheckDigits(value: string, weight: Weight): boolean {
  const values = charValues(value)
  return [values.length - 2, values.length - 1].every(
    (position) => mod11CheckDigit(values.slice(0, position), weight) === values[position],
  )
}

// Strings like 111.111.111-11 pass the check-digit arithmetic but are never issued.
function isSingleRepeatedChar(value: string): boolean {
  return [...value].every((char) => char === value[0])
}

export function normalizeCpf(input: string): string | null {
  const bare = input.replace(DOCUMENT_SEPARATORS, '')
  if (!/^\d{11}$/.test(bare) || isSingleRepeatedChar(bare)) return null
  return hasValidCheckDigits(bare, cpfWeight) ? bare : null
}

export function normalizeCnpj(input: string): string | null {
  const bare = input.replace(DOCUMENT_SEPARATORS, '')
  // Check the ASCII shape before uppercasing: toUpperCase maps some non-ASCII letters
  // (ß, ſ, ı) to ASCII ones and could smuggle them past the pattern.
  if (!/^[0-9A-Za-z]{12}\d{2}$/.test(bare)) return null
  const upper = bare.toUpperCase()
  if (isSingleRepeatedChar(upper)) return null
  return hasValidCheckDigits(upper, cnpjWeight) ? upper : null
}

export type DocumentKind = 'cpf' | 'cnpj'

export interface NormalizedDocument {
  kind: DocumentKind
  value: string
}

export function normalizeDocument(input: string): NormalizedDocument | null {
  const isCpfShaped = /^\d{11}$/.test(input.replace(DOCUMENT_SEPARATORS, ''))
  const kind: DocumentKind = isCpfShaped ? 'cpf' : 'cnpj'
  const value = isCpfShaped ? normalizeCpf(input) : normalizeCnpj(input)
  return value === null ? null : { kind, value }
}

export function isLuhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false
  const sum = [...digits].reverse().reduce((acc, char, index) => {
    const digit = char.charCodeAt(0) - 48
    if (index % 2 === 0) return acc + digit
    const doubled = digit * 2
    return acc + (doubled > 9 ? doubled - 9 : doubled)
  }, 0)
  return sum % 10 === 0
}

export function normalizeImei(input: string): string | null {
  const bare = input.replace(DIGIT_SEPARATORS, '')
  return /^\d{15}$/.test(bare) && isLuhnValid(bare) ? bare : null
}

export function normalizeCardNumber(input: string): string | null {
  const bare = input.replace(DIGIT_SEPARATORS, '')
  return /^\d{12,19}$/.test(bare) && isLuhnValid(bare) ? bare : null
}

export function normalizeCep(input: string): string | null {
  const bare = input.replace(CEP_SEPARATORS, '')
  return /^\d{8}$/.test(bare) ? bare : null
}

export const BRAZILIAN_STATES = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
] as const

export type BrazilianState = (typeof BRAZILIAN_STATES)[number]

const STATE_SET: ReadonlySet<string> = new Set(BRAZILIAN_STATES)

function isBrazilianState(value: string): value is BrazilianState {
  return STATE_SET.has(value)
}

export function normalizeState(input: string): BrazilianState | null {
  const trimmed = input.trim()
  // ASCII check first, for the same toUpperCase reason as in normalizeCnpj.
  if (!/^[A-Za-z]{2}$/.test(trimmed)) return null
  const upper = trimmed.toUpperCase()
  return isBrazilianState(upper) ? upper : null
}

// Only drop a leading 55 when what is left is a full national number; otherwise an
// 11-digit number in area code 55 (Rio Grande do Sul) would lose its area code.
function stripCountryCode(bare: string): string | null {
  const withCountryCode = /^\+?55(\d{10,11})$/.exec(bare)
  if (withCountryCode) return withCountryCode[1] ?? null
  return /^\d{10,11}$/.test(bare) ? bare : null
}

export function normalizePhone(input: string): string | null {
  const national = stripCountryCode(input.replace(PHONE_SEPARATORS, ''))
  if (national === null) return null
  // Area codes never contain 0; mobiles are area code + 9 + 8 digits, landlines area code + 8.
  return /^[1-9]{2}(?:9\d{8}|\d{8})$/.test(national) ? national : null
}

/** A value the route schema's format already accepted: a null from its normaliser is a bug, not bad input. */
export function normalized<T>(value: T | null): T {
  if (value === null) throw new Error('A value accepted by the schema failed to normalise')
  return value
}
