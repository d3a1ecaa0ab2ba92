import { describe, expect, it } from 'vitest'
import { disputeStatusAfter, reasonOf } from './dispute.rules.js'

describe('disputeStatusAfter', () => {
  it.each([
    [undefined, 'charge.dispute.created', 'needs_response', 'disputed'],
    ['disputed', 'charge.dispute.created', 'needs_response', null],
    ['disputed', 'charge.dispute.closed', 'won', 'won'],
    ['disputed', 'charge.dispute.closed', 'lost', 'lost'],
    ['disputed', 'charge.dispute.closed', 'warning_closed', 'won'],
    [undefined, 'charge.dispute.closed', 'lost', 'lost'],
    ['lost', 'charge.dispute.created', 'needs_response', null],
    ['won', 'charge.dispute.closed', 'lost', null],
  ] as const)('%s + %s (%s) → %s', (current, type, stripe, expected) => {
    expect(disputeStatusAfter(current, type, stripe)).toBe(expected)
  })
})

describe('reasonOf', () => {
  it.each([
    ['fraudulent', 'fraudulent'],
    ['product_not_received', 'product_not_received'],
    ['something_new', 'general'],
    [undefined, 'general'],
  ])('%s → %s', (reason, expected) => {
    expect(reasonOf(reason)).toBe(expected)
  })
})
