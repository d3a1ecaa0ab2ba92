import { describe, expect, it } from 'vitest'
import { CSV_BOM, csvCell, csvFile, csvLine, csvMoney, csvTime } from './csv.js'

describe('csvCell', () => {
  it.each([
    ['plain text', 'Maria da Silva', 'Maria da Silva'],
    ['accents kept', 'Ação', 'Ação'],
    ['empty cell', null, ''],
    ['empty text', '', ''],
    ['a formula', '=1+1', "'=1+1"],
    [
      'a hyperlink formula, its quotes doubled',
      '=HYPERLINK("http://x","y")',
      `"'=HYPERLINK(""http://x"",""y"")"`,
    ],
    ['plus', '+55 11 99999-0000', "'+55 11 99999-0000"],
    ['minus', '-2', "'-2"],
    ['at', '@SUM(A1)', "'@SUM(A1)"],
    ['tab first', '\tx', "'\tx"],
    ['CR first, then quoted', '\rx', `"'\rx"`],
    ['a formula sign later is text', 'a=b', 'a=b'],
    ['the separator', 'a;b', '"a;b"'],
    ['a comma needs no quotes', 'a, b', 'a, b'],
    ['a quote', 'say "hi"', '"say ""hi"""'],
    ['a line break', 'one\ntwo', '"one\ntwo"'],
  ])('%s', (_, value, cell) => {
    expect(csvCell(value)).toBe(cell)
  })
})

describe('csvMoney', () => {
  it.each([
    [0, '0,00'],
    [1, '0,01'],
    [99, '0,99'],
    [100, '1,00'],
    [123456, '1234,56'],
    [699900, '6999,00'],
    [100000000, '1000000,00'],
    [-505, '-5,05'],
    [null, null],
  ])('%s cents → %s', (cents, text) => {
    expect(csvMoney(cents)).toBe(text)
  })

  it('refuses a fraction of a cent', () => {
    expect(() => csvMoney(1.5)).toThrow(RangeError)
  })
})

describe('csvTime', () => {
  it.each([
    ['2026-12-08T02:59:00.000Z', 'America/Sao_Paulo', '07/12/2026 23:59'],
    ['2026-12-08T02:59:59.999Z', 'UTC', '08/12/2026 02:59'],
    ['2026-01-01T03:00:00.000Z', 'America/Sao_Paulo', '01/01/2026 00:00'],
    ['2026-06-30T23:30:00.000Z', 'America/Manaus', '30/06/2026 19:30'],
    ['2026-03-29T01:30:00.000Z', 'Europe/Lisbon', '29/03/2026 02:30'],
    [null, 'America/Sao_Paulo', null],
  ])('%s in %s → %s', (instant, zone, text) => {
    expect(csvTime(instant, zone)).toBe(text)
  })
})

describe('csvLine and csvFile', () => {
  it('separates by ; and ends lines with CRLF', () => {
    expect(csvLine(['a', null, '1234,56', 'x;y'])).toBe('a;;1234,56;"x;y"\r\n')
  })

  it('writes the mark once, before the header', async () => {
    async function* rows() {
      yield ['=cmd', '10,00']
      yield ['b', null]
    }
    let file = ''
    for await (const chunk of csvFile(['Nome', 'Valor (R$)'], rows())) file += chunk
    expect(file).toBe(`${CSV_BOM}Nome;Valor (R$)\r\n'=cmd;10,00\r\nb;\r\n`)
    expect(file.indexOf(CSV_BOM, 1)).toBe(-1)
  })
})
