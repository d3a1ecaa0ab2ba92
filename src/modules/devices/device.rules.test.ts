import { describe, expect, it } from 'vitest'
import { deviceKey, sameDevice } from './device.rules.js'

describe('deviceKey', () => {
  it('ignores case, spaces and punctuation', () => {
    expect(deviceKey('ABC-123 ')).toBe('ABC123')
    expect(deviceKey('abc123')).toBe('ABC123')
    expect(deviceKey(' a.b/c_1 2\t3 ')).toBe('ABC123')
    expect(deviceKey('49-015420-323751-8')).toBe('490154203237518')
    // Invisible characters are no part of a serial.
    expect(deviceKey('ABC\u200b123\u00a0')).toBe('ABC123')
  })

  it('reads every script’s decimal digits as ASCII ones', () => {
    const imei = '356789120334188'
    expect(deviceKey('٣٥٦٧٨٩١٢٠٣٣٤١٨٨')).toBe(imei) // Arabic-Indic
    expect(deviceKey('۳۵۶۷۸۹۱۲۰۳۳۴۱۸۸')).toBe(imei) // Extended Arabic-Indic (Persian, Urdu)
    expect(deviceKey('३५६७८९१२०३३४१८८')).toBe(imei) // Devanagari
    expect(deviceKey('３５６７８９１２０３３４１８８')).toBe(imei) // fullwidth
    expect(deviceKey('৩৫৬৭৮৯১২০৩৩৪১৮৮')).toBe(imei) // Bengali
    expect(deviceKey('𝟑𝟓𝟔𝟕𝟖𝟗𝟏𝟐𝟎𝟑𝟑𝟒𝟏𝟖𝟖')).toBe(imei) // mathematical bold
  })

  it('reads letters that look like ASCII ones as those', () => {
    expect(deviceKey('АВСХКЕ 2026')).toBe(deviceKey('ABCXKE 2026')) // Cyrillic
    expect(deviceKey('ΑΒΕΖΗΚΜΝΡΤΥΧ-7')).toBe(deviceKey('ABEZHKMNPTYX-7')) // Greek
    expect(deviceKey('ＡＢＣ１２３')).toBe('ABC123') // fullwidth
    expect(deviceKey('аbс-123')).toBe('ABC123') // lowercase Cyrillic а and с among Latin b
    // Mixed scripts: Greek Ο and Cyrillic і for the digits 0 and 1 of a Latin serial.
    expect(deviceKey('F2LXKΟABCі23')).toBe(deviceKey('F2LXK0ABC123'))
  })

  it('keeps of an ASCII serial its letters and digits alone, every other character ignored', () => {
    for (let code = 0; code < 128; code++) {
      const char = String.fromCharCode(code)
      const kept = /[A-Za-z0-9]/.test(char) ? char.toUpperCase().replace('O', '0').replace('I', '1') : ''
      expect(deviceKey(`7${char}7`)).toBe(`7${kept}7`)
    }
  })

  it('reads O as 0 and I as 1, which UTS #39 confuses', () => {
    expect(deviceKey('F2LXKOABCI23')).toBe('F2LXK0ABC123')
    expect(deviceKey('f2lxk0abc123')).toBe('F2LXK0ABC123')
  })

  it('is empty for a serial that is not Latin letters and digits once read so', () => {
    expect(deviceKey(' --/. ')).toBe('')
    expect(deviceKey('序列号123')).toBe('')
    expect(deviceKey('📱ABC123')).toBe('')
    expect(deviceKey('ABC123é')).toBe('')
    expect(deviceKey('ДЖ-12')).toBe('')
  })
})

describe('sameDevice', () => {
  it('compares by key, and blanks or punctuation alone name no device', () => {
    expect(sameDevice('ABC-123', 'abc 123')).toBe(true)
    expect(sameDevice('ABC-123', 'АВС-١٢٣')).toBe(true)
    expect(sameDevice('ABC-123', 'ABC-124')).toBe(false)
    expect(sameDevice(null, null)).toBe(false)
    expect(sameDevice('--', '..')).toBe(false)
    expect(sameDevice('序', '序')).toBe(false)
    expect(sameDevice('', undefined)).toBe(false)
  })
})
