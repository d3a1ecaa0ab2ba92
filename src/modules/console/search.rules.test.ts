import { describe, expect, it } from 'vitest'
import { maskDocument, searchKeys } from './search.rules.js'

const keys = searchKeys

describe('searchKeys', () => {
  it('reads a CPF with or without punctuation', () => {
    expect(keys('529.982.247-25').document).toBe('52998224725')
    expect(keys('52998224725').document).toBe('52998224725')
    expect(keys('52998224726').document).toBeNull()
  })

  it('reads claim and policy numbers in any case', () => {
    expect(keys(' sin-2026-000001 ')).toMatchObject({ claimNumber: 'SIN-2026-000001', policyNumber: null })
    expect(keys('AMP-2026-000042')).toMatchObject({ policyNumber: 'AMP-2026-000042', claimNumber: null })
  })

  it('reads a short number as an id, a long one as a serial only', () => {
    expect(keys('42')).toMatchObject({ id: 42, serials: [] })
    expect(keys('490154203237518')).toMatchObject({ id: null, serials: ['490154203237518'] })
  })

  it('tries an IMEI or serial as typed, bare, and as its device key', () => {
    expect(keys('49-015420-323751-8')).toMatchObject({
      serials: ['49-015420-323751-8', '490154203237518'],
      deviceKey: '490154203237518',
    })
    expect(keys('f2lxkoabc123')).toMatchObject({
      serials: ['f2lxkoabc123', 'F2LXKOABC123'],
      deviceKey: 'F2LXK0ABC123',
    })
    expect(keys('АВСХКЕ 2026').deviceKey).toBe('ABCXKE2026')
    expect(keys('٣٥٦٧٨٩١٢٠٣٣٤١٨٨').deviceKey).toBe('356789120334188')
    expect(keys('序列号序列号').deviceKey).toBeNull()
  })
})

describe('namePrefixes', () => {
  it.each([
    ['Conceição', ['conceicao']],
    ['  joaq  PERE-ira ', ['joaq', 'pere', 'ira']],
    ['Maria da Silva', ['maria', 'silva']],
    ['jo', []],
    ['SIN-2026-000001', []],
    ['AMP-2026-000042', []],
    ['529.982.247-25', []],
    ['490154203237518', []],
  ])('%s → %j', (q, prefixes) => expect(keys(q).namePrefixes).toEqual(prefixes))
})

describe('maskDocument', () => {
  it.each([
    ['52998224725', '529.***.***-25'],
    ['11222333000181', '11.***.***/****-81'],
    ['1234', '**34'],
  ])('%s → %s', (document, masked) => expect(maskDocument(document)).toBe(masked))
})
