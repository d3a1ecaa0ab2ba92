// Brazilian documents, IMEIs and card numbers for fixtures, with check digits computed here,
// independently of src/shared/documents.ts, so that the tests catch a wrong implementation there.

/** Mod-11 check digit with weights 2, 3, … 9 (CNPJ, cycling) or up to 11 (CPF), from the right. */
function mod11(values: number[], cycle: number): number {
  const sum = values.reduce((acc, v, i) => acc + v * (((values.length - 1 - i) % cycle) + 2), 0)
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}

/** The bare CPF whose first nine digits are `base`: `cpfOf('529982247')` is `52998224725`. */
export function cpfOf(base: string): string {
  const values = [...base].map(Number)
  for (let i = 0; i < 2; i++) values.push(mod11(values, values.length))
  return values.join('')
}

/** The n-th valid bare CPF (0 ≤ n < 9·10⁸, so never nine repeated digits). */
export const cpf = (n: number) => cpfOf(String(100_000_000 + n))

/**
 * The bare CNPJ whose first twelve characters are `base`, digits or (alphanumeric CNPJ)
 * uppercase letters, each worth its character code minus 48.
 */
export function cnpjOf(base: string): string {
  const values = [...base].map((c) => c.charCodeAt(0) - 48)
  for (let i = 0; i < 2; i++) values.push(mod11(values, 8))
  return base + values.slice(12).join('')
}

/** The n-th valid bare numeric CNPJ of a headquarters (`/0001`), n < 9·10⁷. */
export const cnpj = (n: number) => cnpjOf(`${10_000_000 + n}0001`)

export const formatCpf = (s: string) => `${s.slice(0, 3)}.${s.slice(3, 6)}.${s.slice(6, 9)}-${s.slice(9)}`
export const formatCnpj = (s: string) =>
  `${s.slice(0, 2)}.${s.slice(2, 5)}.${s.slice(5, 8)}/${s.slice(8, 12)}-${s.slice(12)}`
/** A CPF or CNPJ without its punctuation. */
export const bare = (document: string) => document.replace(/[./-]/g, '')

/** The Luhn check digit of `body` (IMEIs, card numbers). */
export function luhnDigit(body: string): number {
  const sum = [...body].reverse().reduce((acc, c, i) => {
    const d = Number(c) * (i % 2 === 0 ? 2 : 1)
    return acc + (d > 9 ? d - 9 : d)
  }, 0)
  return (10 - (sum % 10)) % 10
}

/** The n-th 15-digit IMEI with its Luhn check digit. */
export function imei(n: number): string {
  const body = String(35_000_000_000_000 + n)
  return `${body}${luhnDigit(body)}`
}
