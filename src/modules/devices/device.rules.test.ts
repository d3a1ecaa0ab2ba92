import { describe, expect, it } from 'vitest'
import { deviceKey, sameDevice } from './device.rules.js'

describe('deviceKey', () => {
  it('ignores case, spaces and punctuation', () => {
    expect(deviceKey('ABC-123 ')).toBe('ABC123')
    expect(deviceKey('abc123')).toBe('ABC123')
    expect(deviceKey(' a.b/c_1 2\t3 ')).toBe('ABC123')
    expect(deviceKey('49-015420-323751-8')).toBe('490154203237518')
  })

  it('keeps letters and digits of any script, and reads compatibility forms as their plain ones', () => {
    expect(deviceKey('ñ-1')).toBe('Ñ1')
    // Full-width letters and digits, as some keyboards type them.
    expect(deviceKey('ＡＢＣ１２３')).toBe('ABC123')
  })

  it('is empty for an input without letters or digits', () => {
    expect(deviceKey(' --/. ')).toBe('')
  })
})

describe('sameDevice', () => {
  it('compares by key, and blanks or punctuation alone name no device', () => {
    expect(sameDevice('ABC-123', 'abc 123')).toBe(true)
    expect(sameDevice('ABC-123', 'ABC-124')).toBe(false)
    expect(sameDevice(null, null)).toBe(false)
    expect(sameDevice('--', '..')).toBe(false)
    expect(sameDevice('', undefined)).toBe(false)
  })
})
