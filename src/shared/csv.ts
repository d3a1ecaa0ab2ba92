import { formatTimestamp } from './time.js'

// CSV for a spreadsheet set to Brazilian Portuguese (README, Operator console: exports): Excel in
// pt-BR reads `;` as the separator and `,` as the decimal mark, and takes a file for UTF-8 only when
// it starts with a byte-order mark.

/** U+FEFF, written once before the header: without it Excel reads "Ação" as Windows-1252. */
export const CSV_BOM = '\uFEFF'
export const CSV_SEPARATOR = ';'

/** A cell as given: text (null for an empty one). Numbers and times are formatted first. */
export type CsvCell = string | null

/**
 * One cell: a text a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab or CR first) is
 * prefixed with `'`, so a customer named `=HYPERLINK(…)` stays a name; a cell holding the
 * separator, a quote or a line break is quoted (RFC 4180), its quotes doubled.
 */
export function csvCell(value: CsvCell): string {
  if (value === null) return ''
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[;"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** A line of cells, CRLF-terminated. */
export function csvLine(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(CSV_SEPARATOR)}\r\n`
}

/** Cents as Excel pt-BR reads a number: `123456` → `1234,56` (no thousands mark, no currency). */
export function csvMoney(cents: number | null): CsvCell {
  if (cents === null) return null
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Not whole cents: ${cents}`)
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}`
}

/** An instant as the service's zone reads it, `dd/mm/aaaa hh:mm` (Excel pt-BR takes it as a date). */
export function csvTime(instant: string | null, zone: string): CsvCell {
  if (instant === null) return null
  const [date = '', time = ''] = formatTimestamp(instant, zone).split(' ')
  const [year, month, day] = date.split('-')
  return `${day}/${month}/${year} ${time.slice(0, 5)}`
}

/** The whole file, streamed: the mark, the header, then a line per row. */
export async function* csvFile(
  header: readonly string[],
  rows: AsyncIterable<readonly CsvCell[]>,
): AsyncGenerator<string> {
  yield CSV_BOM + csvLine(header)
  for await (const row of rows) yield csvLine(row)
}
