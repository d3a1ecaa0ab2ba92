import { describe, expect, it } from 'vitest'
import { assignmentRefusal, canHoldClaims, noteErrors } from './claim-work.rules.js'

const adjuster = { id: 7, role: 'adjuster' as const }
const admin = { id: 1, role: 'admin' as const }
const viewer = { id: 9, role: 'viewer' as const }

describe('assignmentRefusal', () => {
  it.each([
    ['an adjuster takes an unassigned claim', adjuster, null, 7, false],
    ['an adjuster keeps their own', adjuster, 7, 7, false],
    ['an adjuster releases their own', adjuster, 7, null, false],
    ['an adjuster takes another’s claim', adjuster, 3, 7, true],
    ['an adjuster gives an unassigned claim to another', adjuster, null, 3, true],
    ['an adjuster releases another’s claim', adjuster, 3, null, true],
    ['an admin reassigns', admin, 3, 7, false],
    ['an admin releases another’s claim', admin, 3, null, false],
    ['a viewer takes a claim', viewer, null, 9, true],
  ] as const)('%s', (_, by, current, target, refused) => {
    expect(assignmentRefusal(by, current, target) !== null).toBe(refused)
  })
})

describe('canHoldClaims', () => {
  it('is an adjuster or admin still enabled', () => {
    expect(canHoldClaims({ role: 'adjuster', disabled_at: null })).toBe(true)
    expect(canHoldClaims({ role: 'admin', disabled_at: null })).toBe(true)
    expect(canHoldClaims({ role: 'viewer', disabled_at: null })).toBe(false)
    expect(canHoldClaims({ role: 'adjuster', disabled_at: '2026-12-01T00:00:00.000Z' })).toBe(false)
  })
})

describe('noteErrors', () => {
  it.each([
    ['', true],
    ['   ', true],
    ['a', false],
    ['x'.repeat(2000), false],
    [` ${'x'.repeat(2000)} `, false],
    ['x'.repeat(2001), true],
  ])('%#', (body, refused) => {
    expect('body' in noteErrors(body)).toBe(refused)
  })
})
