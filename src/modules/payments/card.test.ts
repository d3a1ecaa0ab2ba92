import { describe, expect, it } from 'vitest'
import { checkCard } from './card.js'

const today = '2026-11-21'
const valid = { number: '4111 1111 1111 1111', expiry: '1228', cvv: '123' }

describe('checkCard', () => {
  it('accepts a valid card and normalises the number', () => {
    expect(checkCard(valid, today, 'MMYY')).toEqual({
      ok: true,
      card: { number: '4111111111111111', expiryMonth: 12, expiryYear: 2028, cvv: '123' },
    })
  })

  it('accepts MM/YY and the current month, keeps the holder', () => {
    const check = checkCard({ ...valid, expiry: '11/26', holder: ' Ana Souza ' }, today, 'MMYY')
    expect(check).toMatchObject({
      ok: true,
      card: { expiryMonth: 11, expiryYear: 2026, holder: 'Ana Souza' },
    })
  })

  it.each([
    ['a failing Luhn check', { number: '4111111111111112' }, 'number'],
    ['letters in the number', { number: '4111-1111-abcd-1111' }, 'number'],
    ['a short number', { number: '41111' }, 'number'],
    ['month 13', { expiry: '1328' }, 'expiry'],
    ['month 00', { expiry: '0028' }, 'expiry'],
    ['last month', { expiry: '1026' }, 'expiry'],
    ['a full year', { expiry: '12/2028' }, 'expiry'],
    ['a 2-digit code', { cvv: '12' }, 'cvv'],
    ['a 5-digit code', { cvv: '12345' }, 'cvv'],
    ['letters in the code', { cvv: '12a' }, 'cvv'],
  ])('refuses %s', (_label, change, key) => {
    const check = checkCard({ ...valid, ...change }, today, 'MMYY')
    expect(check.ok).toBe(false)
    expect(Object.keys(check.ok ? {} : check.errors)).toEqual([key])
  })

  it('reports every problem at once', () => {
    const check = checkCard({ number: '1', expiry: 'x', cvv: '' }, today, 'MMYY')
    expect(check.ok ? [] : Object.keys(check.errors).sort()).toEqual(['cvv', 'expiry', 'number'])
  })

  it('names the expiry shape its caller documents, accepting either', () => {
    for (const shape of ['MMYY', 'MM/YY'] as const) {
      expect(checkCard({ ...valid, expiry: '1330' }, today, shape)).toEqual({
        ok: false,
        errors: { expiry: `The card expiry must be a month and year, ${shape}.` },
      })
      for (const expiry of ['1228', '12/28'])
        expect(checkCard({ ...valid, expiry }, today, shape).ok).toBe(true)
    }
  })
})
