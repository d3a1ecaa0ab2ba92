import { describe, expect, it } from 'vitest'
import type { Subscription } from './helpers/api-types.js'
import { uniqueImei } from './helpers/bodies.js'
import {
  a,
  contract,
  MAXIMA_DECIMALS,
  minimal,
  okJson,
  pro,
  quote,
  refused,
  SERIALS_EQUAL,
  total,
  useSubscriptionsWorld,
} from './helpers/world/subscriptions.js'

// Contracting a subscription: the device (serials, used flag), metadata.origin and maxima.

useSubscriptionsWorld()

describe('subscriptions', () => {
  describe('POST /subscriptions', () => {
    describe('the serials', () => {
      it.each([
        ['equal', '490154203237518', '490154203237518'],
        ['differing only in case', 'abc123xyz', 'ABC123XYZ'],
        ['differing only in surrounding blanks', ' ABC123 ', 'ABC123'],
      ])('refuses serials %s with 422 errors.second_serial_number', async (_label, first, second) => {
        const errors = await refused(a.token, minimal({ serial_number: first, second_serial_number: second }))
        expect(errors).toEqual({ second_serial_number: [SERIALS_EQUAL] })
      })

      it('accepts different serials, trimmed, and blank or null ones as none', async () => {
        const [first, second] = [uniqueImei(), uniqueImei()]
        const created = await contract(
          a.token,
          minimal({ serial_number: `  ${first} `, second_serial_number: second }),
        )
        expect(created.device).toMatchObject({ serial_number: first, second_serial_number: second })
        const blank = await contract(a.token, minimal({ serial_number: '   ', second_serial_number: '   ' }))
        expect(blank.device).toMatchObject({ serial_number: null, second_serial_number: null })
        const nulls = await contract(a.token, minimal({ serial_number: null, second_serial_number: null }))
        expect(nulls.device).toMatchObject({ serial_number: null, second_serial_number: null })
        const third = uniqueImei()
        const onlySecond = await contract(a.token, minimal({ second_serial_number: third }))
        expect(onlySecond.device).toMatchObject({ serial_number: null, second_serial_number: third })
      })

      it('refuses a serial over 50 characters', async () => {
        expect(Object.keys(await refused(a.token, minimal({ serial_number: 'X'.repeat(51) })))).toEqual([
          'serial_number',
        ])
      })
    })

    describe('the used-device flag', () => {
      it.each([
        ['is_used: true', true, { is_used: true }],
        ['used: true', true, { used: true }],
        ['is_used: false', false, { is_used: false }],
        ['used: false', false, { used: false }],
        ['neither', false, {}],
        ['is_used: true, used: true', true, { is_used: true, used: true }],
        ['is_used: false, used: null', false, { is_used: false, used: null }],
      ])('%s → device.is_used %s', async (_label, expected, extra) => {
        const created = await contract(a.token, minimal(extra))
        expect(created.device.is_used).toBe(expected)
        expect((await okJson<Subscription>(a.token, `/subscriptions/${created.id}`)).device.is_used).toBe(
          expected,
        )
      })

      it.each([
        { is_used: false, used: true },
        { is_used: true, used: false },
      ])('refuses %o: the flag and its alias disagree', async (extra) => {
        expect(await refused(a.token, minimal(extra))).toEqual({
          is_used: ['The is used field and its alias used must agree.'],
        })
      })

      it('does not change the price of a subscription', async () => {
        const created = await contract(a.token, minimal({ used: true }))
        expect(created).toMatchObject({ valor: 107.99, lmi: 8999, franchise: 1349.85 })
      })
    })

    describe('metadata.origin', () => {
      it('accepts 100 characters and keeps them', async () => {
        const origin = 'o'.repeat(100)
        const created = await contract(a.token, minimal({ metadata: { origin } }))
        expect(created.metadata).toEqual({ origin })
      })

      it('counts characters, not UTF-16 units: 100 emoji are 100 characters', async () => {
        const origin = '😀'.repeat(100)
        expect((await contract(a.token, minimal({ metadata: { origin } }))).metadata).toEqual({ origin })
        const errors = await refused(a.token, minimal({ metadata: { origin: `${origin}😀` } }))
        expect(Object.keys(errors)).toEqual(['metadata.origin'])
      })

      it("refuses 101 characters with 422 errors['metadata.origin']", async () => {
        const errors = await refused(a.token, minimal({ metadata: { origin: 'o'.repeat(101) } }))
        expect(Object.keys(errors)).toEqual(['metadata.origin'])
        expect(errors['metadata.origin']?.[0]).toContain('100')
      })

      it('answers origin null for no metadata, an empty one, a null origin or a blank one', async () => {
        for (const metadata of [undefined, {}, { origin: null }, { origin: '   ' }]) {
          const created = await contract(a.token, minimal({ metadata }))
          expect(created.metadata).toEqual({ origin: null })
        }
      })
    })

    describe('maxima', () => {
      it.each([
        ['inside the range', 5000, 5000, 60], // 500000 × 120 bp = 6000
        ['exactly the minimum', 4499.5, 4499.5, 53.99], // 449950 × 120 bp = 5399.4 → 5399
        ['exactly the maximum', 8999, 8999, 107.99],
        ['a cent below the minimum', 4499.49, 8999, 107.99],
        ['a cent above the maximum', 8999.01, 8999, 107.99],
        ['zero', 0, 8999, 107.99],
        ['negative', -5000, 8999, 107.99],
        ['huge', 1e300, 8999, 107.99],
      ])('%s (%s) → LMI %s, valor %s, as the quotation', async (_label, maxima, lmi, valor) => {
        const created = await contract(a.token, minimal({ maxima }))
        expect(created).toMatchObject({ lmi, valor })
        if (Math.abs(maxima) < 1e12) {
          expect(await quote(a.token, total, pro, maxima)).toMatchObject({ lmi, monthly_premium: valor })
        }
      })

      it('refuses more than two decimals with 422 errors.maxima', async () => {
        expect(await refused(a.token, minimal({ maxima: 1.005 }))).toEqual({ maxima: [MAXIMA_DECIMALS] })
        expect(await refused(a.token, minimal({ maxima: 5000.001 }))).toEqual({ maxima: [MAXIMA_DECIMALS] })
      })
    })
  })
})
