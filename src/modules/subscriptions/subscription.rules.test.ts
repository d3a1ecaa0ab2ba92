import { describe, expect, it } from 'vitest'
import type { InstallmentStatus, SubscriptionStatus } from '../../db/tables/subscription.js'
import { StateError } from '../../shared/errors.js'
import {
  activationBy,
  assertCardReplaceable,
  assertFirstPayableByCard,
  assertNotifiable,
  assertSerialsInformable,
  cancellationOf,
  coverageEndsAt,
  coverageEndsOn,
  ExpiredUnpaidError,
  endedBy,
  expiredAt,
  expiryCutoff,
  INSTALLMENT_FROM,
  installmentMayMove,
  isUnpaid,
  pastPendingExpiry,
  recurrenceCancellation,
  SUBSCRIPTION_FROM,
  statusAt,
  subscriptionMayMove,
  UNPAID_CANCELLATION,
} from './subscription.rules.js'

const SP = 'America/Sao_Paulo'

describe('isUnpaid', () => {
  it.each([
    ['pending', true],
    ['refused', true],
    ['paid', false],
    ['canceled', false],
  ] as const)('%s → %s', (status, expected) => {
    expect(isUnpaid(status)).toBe(expected)
  })
})

describe('SUBSCRIPTION_FROM', () => {
  // Every pair of statuses: whether the lifecycle may move a subscription from the first to the second.
  it.each([
    ['pending', 'pago', true],
    ['pending', 'canceled', true],
    ['pending', 'expired', false],
    ['pending', 'pending', false],
    ['pago', 'canceled', true],
    ['pago', 'expired', true],
    ['pago', 'pending', false],
    ['pago', 'pago', false],
    ['canceled', 'pending', false],
    ['canceled', 'pago', false],
    ['canceled', 'expired', false],
    ['canceled', 'canceled', false],
    ['expired', 'pending', false],
    ['expired', 'pago', false],
    ['expired', 'canceled', false],
    ['expired', 'expired', false],
  ] as const)('%s → %s: %s', (from: SubscriptionStatus, to: SubscriptionStatus, allowed) => {
    expect(subscriptionMayMove(from, to)).toBe(allowed)
    expect((SUBSCRIPTION_FROM[to] as readonly SubscriptionStatus[]).includes(from)).toBe(allowed)
  })

  it('every transition the rules ask for is one the from-sets allow', () => {
    const activation = activationBy(1)
    expect(activation && subscriptionMayMove(activation.from, activation.to)).toBe(true)
    for (const state of ['pending', 'pago'] as const) {
      const { from, to } = cancellationOf(state, 'partner_request')
      expect(subscriptionMayMove(from, to)).toBe(true)
    }
    expect(subscriptionMayMove(UNPAID_CANCELLATION.from, 'canceled')).toBe(true)
    const ending = recurrenceCancellation(null)
    expect(ending && subscriptionMayMove(ending.from, 'canceled')).toBe(true)
  })
})

describe('INSTALLMENT_FROM', () => {
  it.each([
    ['pending', 'paid', true],
    ['pending', 'refused', true],
    ['pending', 'canceled', true],
    ['pending', 'pending', false],
    ['refused', 'paid', true],
    ['refused', 'refused', true],
    ['refused', 'canceled', true],
    ['refused', 'pending', false],
    ['paid', 'pending', false],
    ['paid', 'refused', false],
    ['paid', 'canceled', false],
    ['paid', 'paid', false],
    ['canceled', 'pending', false],
    ['canceled', 'paid', false],
    ['canceled', 'refused', false],
    ['canceled', 'canceled', false],
  ] as const)('%s → %s: %s', (from: InstallmentStatus, to: InstallmentStatus, allowed) => {
    expect(installmentMayMove(from, to)).toBe(allowed)
    expect((INSTALLMENT_FROM[to] as readonly InstallmentStatus[]).includes(from)).toBe(allowed)
  })

  it('an installment is paid, refused or canceled only while unpaid', () => {
    for (const to of ['paid', 'refused', 'canceled'] as const)
      for (const from of INSTALLMENT_FROM[to]) expect(isUnpaid(from)).toBe(true)
  })
})

describe('activationBy', () => {
  it('installment 1 moves a pending subscription to pago; later ones move nothing', () => {
    expect(activationBy(1)).toEqual({ from: 'pending', to: 'pago' })
    expect(activationBy(2)).toBeNull()
    expect(activationBy(12)).toBeNull()
  })
})

describe('cancellationOf', () => {
  it.each([
    ['pending', 'partner_request', { from: 'pending', to: 'canceled', reason: 'partner_request' }],
    ['pago', 'partner_request', { from: 'pago', to: 'canceled', reason: 'partner_request' }],
    ['pago', 'recurrence_failed', { from: 'pago', to: 'canceled', reason: 'recurrence_failed' }],
  ] as const)('%s for %s → %o', (state, reason, expected) => {
    expect(cancellationOf(state, reason)).toEqual(expected)
  })

  it.each([
    ['canceled', 'already canceled'],
    ['expired', 'has expired'],
  ] as const)('a %s subscription is refused (%s)', (state, message) => {
    expect(() => cancellationOf(state, 'partner_request')).toThrow(StateError)
    expect(() => cancellationOf(state, 'partner_request')).toThrow(message)
  })
})

describe('recurrenceCancellation', () => {
  it('cancels the active subscription only once no retry is left', () => {
    expect(recurrenceCancellation('2026-12-22')).toBeNull()
    expect(recurrenceCancellation(null)).toEqual({ from: 'pago', reason: 'recurrence_failed' })
  })
})

describe('coverageEndsOn', () => {
  it.each([
    ['12 installments from 21 Nov', '2026-11-21', 12, '2027-11-21'],
    ['1 installment', '2026-11-21', 1, '2026-12-21'],
    ['from 31 Jan, clamped like the due dates', '2026-01-31', 1, '2026-02-28'],
    ['from 31 Jan, 2 months, back to the 31st', '2026-01-31', 2, '2026-03-31'],
    ['from 29 Feb of a leap year', '2028-02-29', 12, '2029-02-28'],
  ])('%s', (_label, contractedOn, count, expected) => {
    expect(coverageEndsOn(contractedOn, count)).toBe(expected)
  })

  it('00:00 of the end day in the service zone', () => {
    expect(coverageEndsAt('2027-11-21', SP)).toBe('2027-11-21T03:00:00.000Z')
    expect(coverageEndsAt('2027-11-21', 'UTC')).toBe('2027-11-21T00:00:00.000Z')
  })
})

describe('expiredAt / endedBy / statusAt', () => {
  const active = { status: 'pago' as const, ends_on: '2027-11-21' }

  it.each([
    ['a day before the end', '2027-11-20T12:00:00.000Z', false],
    ['the last instant of the last month (23:59:59 local)', '2027-11-21T02:59:59.999Z', false],
    ['at 00:00 local of the end day', '2027-11-21T03:00:00.000Z', true],
    ['years later', '2030-01-01T00:00:00.000Z', true],
  ])('an active subscription %s → expired %s', (_label, now, expected) => {
    expect(expiredAt(active, now, SP)).toBe(expected)
    expect(statusAt(active, new Date(now), SP)).toBe(expected ? 'expired' : 'pago')
  })

  it.each([
    ['2027-11-20', false],
    ['2027-11-21', true],
    ['2030-01-01', true],
  ])('an active subscription on the partner’s date %s → ended %s', (today, expected) => {
    expect(endedBy(active, today)).toBe(expected)
    expect(endedBy({ ...active, status: 'canceled' }, today)).toBe(false)
  })

  it('an expiry recorded stays: `expired` is not due again, and shows as it is', () => {
    const expired = { status: 'expired' as const, ends_on: '2027-11-21' }
    expect(expiredAt(expired, '2030-01-01T00:00:00.000Z', SP)).toBe(false)
    expect(endedBy(expired, '2030-01-01')).toBe(false)
    expect(statusAt(expired, '2030-01-01T00:00:00.000Z', SP)).toBe('expired')
  })

  it.each([
    ['pending', 'pending'],
    ['canceled', 'canceled'],
  ] as const)('a %s subscription never expires', (status, expected) => {
    const later = '2031-01-01T00:00:00.000Z'
    expect(expiredAt({ status, ends_on: '2027-11-21' }, later, SP)).toBe(false)
    expect(statusAt({ status, ends_on: '2027-11-21' }, later, SP)).toBe(expected)
  })
})

describe('expiryCutoff', () => {
  it('is 00:00 in the service zone of the day 29 days before today', () => {
    // São Paulo is UTC−3: contracted on 2026-11-21 (local) expires on 2026-12-21.
    expect(expiryCutoff('2026-12-21', 'America/Sao_Paulo')).toBe('2026-11-22T03:00:00.000Z')
    expect(expiryCutoff('2026-12-21', 'UTC')).toBe('2026-11-22T00:00:00.000Z')
  })

  it('counts calendar days across month ends', () => {
    expect(expiryCutoff('2027-03-01', 'UTC')).toBe('2027-01-31T00:00:00.000Z')
  })
})

describe('pastPendingExpiry', () => {
  const zone = 'America/Sao_Paulo'
  // 23:30 local on 2026-11-21 is 02:30 UTC on the 22nd: the local contracting day counts.
  const lateEvening = '2026-11-22T02:30:00.000Z'

  it('is false through day 29 and true from 00:00 of day 30, local calendar days', () => {
    expect(pastPendingExpiry(lateEvening, new Date('2026-12-21T02:59:59.000Z'), zone)).toBe(false)
    expect(pastPendingExpiry(lateEvening, new Date('2026-12-21T03:00:00.000Z'), zone)).toBe(true)
    expect(pastPendingExpiry(lateEvening, new Date('2027-01-15T12:00:00.000Z'), zone)).toBe(true)
  })

  it('compares instants to the millisecond', () => {
    const now = new Date('2026-12-21T03:00:00.000Z')
    expect(pastPendingExpiry('2026-11-22T02:59:59.999Z', now, zone)).toBe(true)
    expect(pastPendingExpiry('2026-11-22T03:00:00.000Z', now, zone)).toBe(false)
  })
})

describe('assertNotifiable', () => {
  const now = new Date('2026-12-01T12:00:00.000Z')
  const first = {
    number: 1,
    status: 'pending' as const,
    subscription_status: 'pending' as const,
    subscription_created_at: '2026-11-21T13:00:00.000Z',
  }
  const paid = () => true
  const unpaid = () => false

  it.each([
    ['installment 1 of a pending subscription', first, paid, null],
    ['a refused installment', { ...first, status: 'refused' as const }, paid, null],
    ['a later one once 1 is paid', { ...first, number: 2, subscription_status: 'pago' as const }, paid, null],
    ['a later one while 1 is unpaid', { ...first, number: 2 }, unpaid, 'Installment 1 must be paid first.'],
    [
      'of a canceled subscription',
      { ...first, subscription_status: 'canceled' as const },
      paid,
      'The subscription is canceled.',
    ],
    [
      'a canceled installment',
      { ...first, status: 'canceled' as const },
      paid,
      'The installment is canceled.',
    ],
    [
      'installment 1 past its 30 days',
      { ...first, subscription_created_at: '2026-10-01T13:00:00.000Z' },
      paid,
      'expired unpaid',
    ],
  ])('%s', (_label, installment, firstPaid, refusal) => {
    const check = () => assertNotifiable(installment, firstPaid, now, SP)
    if (refusal === null) expect(check).not.toThrow()
    else expect(check).toThrow(refusal)
  })
})

describe('assertFirstPayableByCard', () => {
  const now = new Date('2026-12-01T12:00:00.000Z')
  const pending = { status: 'pending' as const, created_at: '2026-11-21T13:00:00.000Z' }

  it.each([
    ['pending, installment 1 pending', pending, { status: 'pending' as const }, null],
    ['pending, installment 1 refused', pending, { status: 'refused' as const }, null],
    [
      'already active',
      { ...pending, status: 'pago' as const },
      { status: 'paid' as const },
      'this one is pago',
    ],
    [
      'canceled',
      { ...pending, status: 'canceled' as const },
      { status: 'canceled' as const },
      'this one is canceled',
    ],
    [
      'past its 30 days',
      { ...pending, created_at: '2026-10-01T13:00:00.000Z' },
      { status: 'pending' as const },
      ExpiredUnpaidError,
    ],
    ['installment 1 canceled', pending, { status: 'canceled' as const }, 'can no longer be paid'],
    ['no installment 1', pending, undefined, 'can no longer be paid'],
  ])('%s', (_label, subscription, first, refusal) => {
    const check = () => assertFirstPayableByCard(subscription, first, now, SP)
    if (refusal === null) expect(check).not.toThrow()
    else expect(check).toThrow(refusal)
  })
})

describe('assertCardReplaceable / assertSerialsInformable', () => {
  it.each([
    ['pago', null, null],
    ['pending', 'Installment 1 is unpaid', null],
    ['canceled', 'canceled', 'canceled'],
    ['expired', 'expired', 'expired'],
  ] as const)('%s', (state: SubscriptionStatus, card, serials) => {
    if (card === null) expect(() => assertCardReplaceable(state)).not.toThrow()
    else expect(() => assertCardReplaceable(state)).toThrow(card)
    if (serials === null) expect(() => assertSerialsInformable(state)).not.toThrow()
    else expect(() => assertSerialsInformable(state)).toThrow(serials)
  })
})
