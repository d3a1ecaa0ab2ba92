import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../shared/errors.js'
import { advanceSeconds, clockSteps, DAY_SECONDS, MAX_OFFSET_SECONDS } from './sandbox-clock.rules.js'

const fieldsOf = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (error instanceof ValidationError) return Object.keys(error.errors ?? {})
    throw error
  }
  throw new Error('no error')
}

describe('advanceSeconds', () => {
  it('turns days or hours into seconds', () => {
    expect(advanceSeconds({ days: 31 }, 0)).toBe(31 * DAY_SECONDS)
    expect(advanceSeconds({ hours: 5 }, 0)).toBe(5 * 3_600)
  })

  it('wants exactly one of them', () => {
    expect(fieldsOf(() => advanceSeconds({ days: 1, hours: 1 }, 0))).toEqual(['days', 'hours'])
    expect(fieldsOf(() => advanceSeconds({}, 0))).toEqual(['days'])
  })

  it('keeps the clock within 50 years of real time, under the field sent', () => {
    expect(advanceSeconds({ days: 1 }, MAX_OFFSET_SECONDS - DAY_SECONDS)).toBe(DAY_SECONDS)
    expect(fieldsOf(() => advanceSeconds({ days: 2 }, MAX_OFFSET_SECONDS - DAY_SECONDS))).toEqual(['days'])
    expect(fieldsOf(() => advanceSeconds({ hours: 25 }, MAX_OFFSET_SECONDS - DAY_SECONDS))).toEqual(['hours'])
  })
})

describe('clockSteps', () => {
  it('stops once a day, then at the end', () => {
    expect(clockSteps(0, 3 * DAY_SECONDS)).toEqual([DAY_SECONDS, 2 * DAY_SECONDS, 3 * DAY_SECONDS])
    expect(clockSteps(100, 30 * 3_600)).toEqual([100 + DAY_SECONDS, 100 + 30 * 3_600])
    expect(clockSteps(0, 5 * 3_600)).toEqual([5 * 3_600])
  })
})
