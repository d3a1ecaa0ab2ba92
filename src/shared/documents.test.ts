import { describe, expect, it } from 'vitest'
import {
  BRAZILIAN_STATES,
  isLuhnValid,
  normalizeCardNumber,
  normalizeCep,
  normalizeCnpj,
  normalizeCpf,
  normalizeDocument,
  normalizeImei,
  normalizePhone,
  normalizeState,
} from './documents.js'

// Fixed literals whose check digits were worked out by hand, so the tests do not share
// the implementation's arithmetic.

describe('normalizeCpf', () => {
  it.each([
    ['529.982.247-25', '52998224725'],
    ['52998224725', '52998224725'],
    ['111.444.777-35', '11144477735'],
    // second check digit hits the remainder < 2 branch; leading zero kept
    ['012.345.678-90', '01234567890'],
    // both check digits hit the remainder < 2 branch
    ['987.654.321-00', '98765432100'],
    ['123.456.789-09', '12345678909'],
    ['  529.982.247-25  ', '52998224725'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeCpf(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['529.982.247-2'],
    ['5299822472'],
    ['529982247250'],
    ['529.982.247-26'],
    ['529.982.247-35'],
    ['111.444.777-36'],
    ['000.000.000-00'],
    ['111.111.111-11'],
    ['999.999.999-99'],
    ['529.982.247-2A'],
    ['52998224A25'],
    ['abc.def.ghi-jk'],
    ['529,982,247-25'],
    ['５２９９８２２４７２５'],
    ['11.222.333/0001-81'],
  ])('rejects %j', (input) => {
    expect(normalizeCpf(input)).toBeNull()
  })
})

describe('normalizeCnpj', () => {
  it.each([
    ['11.222.333/0001-81', '11222333000181'],
    ['11222333000181', '11222333000181'],
    ['12.345.678/0001-95', '12345678000195'],
    ['00.000.000/0001-91', '00000000000191'],
    // both check digits hit the remainder < 2 branch
    ['33.000.167/0001-01', '33000167000101'],
    ['12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['12ABC34501DE35', '12ABC34501DE35'],
    ['12.abc.345/01de-35', '12ABC34501DE35'],
    ['A1.B2C.3D4/E5F6-68', 'A1B2C3D4E5F668'],
    ['a1b2c3d4e5f668', 'A1B2C3D4E5F668'],
    ['SP.000.000/000S-17', 'SP000000000S17'],
    [' 12 ABC 345 01DE 35 ', '12ABC34501DE35'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeCnpj(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['11.222.333/0001-8'],
    ['1122233300018'],
    ['112223330001810'],
    ['11.222.333/0001-82'],
    ['11.222.333/0001-91'],
    ['12.ABC.345/01DE-36'],
    ['12.ABC.345/01DE-53'],
    ['00.000.000/0000-00'],
    ['11.111.111/1111-11'],
    ['AA.AAA.AAA/AAAA-AA'],
    // check digits must be digits
    ['12.ABC.345/01DE-3A'],
    ['12.ABC.345/01DE-AB'],
    ['12.ABC.345/01DE-ab'],
    ['12.ABC.345/01D*-35'],
    ['12_ABC_345_01DE_35'],
    // toUpperCase would turn ſ into S and ß into SS
    ['ſP.000.000/000S-17'],
    ['SP.000.000/000ß-17'],
    ['12.ÁBC.345/01DE-35'],
    ['529.982.247-25'],
  ])('rejects %j', (input) => {
    expect(normalizeCnpj(input)).toBeNull()
  })
})

describe('normalizeDocument', () => {
  it.each([
    ['529.982.247-25', { kind: 'cpf', value: '52998224725' }],
    ['01234567890', { kind: 'cpf', value: '01234567890' }],
    ['11.222.333/0001-81', { kind: 'cnpj', value: '11222333000181' }],
    ['12.abc.345/01de-35', { kind: 'cnpj', value: '12ABC34501DE35' }],
  ])('classifies %j', (input, expected) => {
    expect(normalizeDocument(input)).toEqual(expected)
  })

  it.each([
    [''],
    ['   '],
    ['529.982.247-26'],
    ['111.111.111-11'],
    ['11.222.333/0001-82'],
    ['00.000.000/0000-00'],
    ['123456789'],
    ['5299822472500'],
    ['not a document'],
  ])('rejects %j', (input) => {
    expect(normalizeDocument(input)).toBeNull()
  })
})

describe('isLuhnValid', () => {
  it.each([
    ['490154203237518', true],
    ['4111111111111111', true],
    ['0', true],
    ['18', true],
    ['490154203237519', false],
    ['4111111111111112', false],
    ['19', false],
    ['', false],
    ['4111 1111 1111 1111', false],
    ['41111111111a1111', false],
  ])('%j is %s', (input, expected) => {
    expect(isLuhnValid(input)).toBe(expected)
  })
})

describe('normalizeImei', () => {
  it.each([
    ['490154203237518', '490154203237518'],
    ['49-015420-323751-8', '490154203237518'],
    ['49 015420 323751 8', '490154203237518'],
    ['356938035643809', '356938035643809'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeImei(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['490154203237517'],
    ['356938035643808'],
    ['49015420323751'],
    ['4901542032375180'],
    ['49015420323751A'],
    ['49.015420.323751.8'],
    ['４９０１５４２０３２３７５１８'],
  ])('rejects %j', (input) => {
    expect(normalizeImei(input)).toBeNull()
  })
})

describe('normalizeCardNumber', () => {
  it.each([
    ['4111 1111 1111 1111', '4111111111111111'],
    ['5555-5555-5555-4444', '5555555555554444'],
    ['3782 822463 10005', '378282246310005'],
    ['6011111111111117', '6011111111111117'],
    // shortest and longest accepted lengths
    ['123456789015', '123456789015'],
    ['4000000000000000006', '4000000000000000006'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeCardNumber(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['4111 1111 1111 1112'],
    ['5555-5555-5555-4445'],
    // Luhn valid but too short / too long
    ['12345674'],
    ['04000000000000000006'],
    ['4111 1111 1111 111A'],
    ['4111.1111.1111.1111'],
  ])('rejects %j', (input) => {
    expect(normalizeCardNumber(input)).toBeNull()
  })
})

describe('normalizeCep', () => {
  it.each([
    ['01310-100', '01310100'],
    ['01310100', '01310100'],
    [' 01310-100 ', '01310100'],
    ['70040-010', '70040010'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeCep(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['1310-100'],
    ['0131010'],
    ['013101000'],
    ['01310-1000'],
    ['01310-10A'],
    ['ABCDE-FGH'],
    ['01310/100'],
  ])('rejects %j', (input) => {
    expect(normalizeCep(input)).toBeNull()
  })
})

describe('BRAZILIAN_STATES', () => {
  it('lists the 26 states plus the Federal District, once each', () => {
    expect(BRAZILIAN_STATES).toHaveLength(27)
    expect(new Set(BRAZILIAN_STATES).size).toBe(27)
    expect(BRAZILIAN_STATES).toContain('DF')
  })
})

describe('normalizeState', () => {
  it.each([
    ['SP', 'SP'],
    ['sp', 'SP'],
    [' rj ', 'RJ'],
    ['Df', 'DF'],
    ['TO', 'TO'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeState(input)).toBe(expected)
  })

  it.each([[''], ['   '], ['XX'], ['S'], ['SPP'], ['S P'], ['São Paulo'], ['ſp'], ['12']])(
    'rejects %j',
    (input) => {
      expect(normalizeState(input)).toBeNull()
    },
  )
})

describe('normalizePhone', () => {
  it.each([
    ['(11) 98765-4321', '11987654321'],
    ['11987654321', '11987654321'],
    ['+55 (11) 98765-4321', '11987654321'],
    ['55 11 98765-4321', '11987654321'],
    ['+5511987654321', '11987654321'],
    ['(21) 3456-7890', '2134567890'],
    ['+55 21 3456.7890', '2134567890'],
    ['552134567890', '2134567890'],
    // area code 55 must not be mistaken for the country code
    ['(55) 99123-4567', '55991234567'],
    ['(55) 3222-1234', '5532221234'],
    ['+55 55 99123-4567', '55991234567'],
    ['(99) 98765-4321', '99987654321'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['98765-4321'],
    ['(11) 8765-432'],
    ['(11) 98765-43210'],
    // mobile without the leading 9
    ['(11) 88765-4321'],
    // area codes containing 0
    ['(10) 98765-4321'],
    ['(01) 98765-4321'],
    ['(20) 3456-7890'],
    ['(00) 3456-7890'],
    ['+1 (11) 98765-4321'],
    ['+11987654321'],
    ['4411987654321'],
    ['+55'],
    ['+55 (11) 8765-432'],
    ['(11) 9876A-4321'],
    ['11/98765-4321'],
  ])('rejects %j', (input) => {
    expect(normalizePhone(input)).toBeNull()
  })
})
