import { describe, expect, it } from 'vitest'
import type { ClaimStatus } from '../../db/tables/claim.js'
import {
  ageInDays,
  claimDeadline,
  deadlineBounds,
  deadlineStartAfter,
  dueOn,
} from './claim-deadline.rules.js'

const SP = 'America/Sao_Paulo' // UTC−3, no daylight saving since 2019

describe('dueOn', () => {
  it.each([
    [
      'a document at 23:30 in São Paulo counts from that local day',
      '2026-11-01T02:30:00.000Z',
      SP,
      '2026-11-30',
    ],
    ['the same instant in UTC is the next day', '2026-11-01T02:30:00.000Z', 'UTC', '2026-12-01'],
    ['00:00 in São Paulo is that day', '2026-11-01T03:00:00.000Z', SP, '2026-12-01'],
    ['across February (2027)', '2027-01-31T15:00:00.000Z', SP, '2027-03-02'],
    ['across a leap February (2028)', '2028-01-31T15:00:00.000Z', SP, '2028-03-01'],
    ['across the year', '2026-12-15T15:00:00.000Z', SP, '2027-01-14'],
  ])('%s', (_, startedAt, zone, due) => {
    expect(dueOn(startedAt, zone)).toBe(due)
  })
})

describe('claimDeadline', () => {
  // Documents complete at 23:30 on 31 October in São Paulo: due on 30 November.
  const started = '2026-11-01T02:30:00.000Z'
  it.each([
    ['on time, eight days ahead', 'under_review', '2026-11-22T15:00:00.000Z', 'on_time', 8],
    ['on time, seven days ahead', 'under_review', '2026-11-23T15:00:00.000Z', 'on_time', 7],
    ['this week, six days ahead', 'under_review', '2026-11-24T15:00:00.000Z', 'due_this_week', 6],
    ['this week on its last day, 23:59 local', 'approved', '2026-12-01T02:59:00.000Z', 'due_this_week', 0],
    ['overdue from 00:00 local the day after', 'approved', '2026-12-01T03:00:00.000Z', 'overdue', -1],
    ['overdue by ten days', 'under_review', '2026-12-10T15:00:00.000Z', 'overdue', -10],
  ] as const)('%s', (_, status, now, state, daysLeft) => {
    expect(claimDeadline({ status, deadlineStartedAt: started }, now, SP)).toEqual({
      state,
      dueOn: '2026-11-30',
      daysLeft,
    })
  })

  it.each([
    [
      'awaiting documents: suspended',
      'documents_pending',
      null,
      { state: 'suspended', dueOn: null, daysLeft: null },
    ],
    [
      'awaiting requested documents: suspended, whatever started before',
      'documents_pending',
      started,
      { state: 'suspended', dueOn: null, daysLeft: null },
    ],
    ['denied: none', 'denied', started, null],
    ['settled: none', 'settled', started, null],
    ['withdrawn: none', 'withdrawn', started, null],
    ['under review with no start recorded: none', 'under_review', null, null],
  ] as const)('%s', (_, status, deadlineStartedAt, expected) => {
    expect(claimDeadline({ status, deadlineStartedAt }, '2026-11-10T12:00:00.000Z', SP)).toEqual(expected)
  })
})

describe('deadlineStartAfter', () => {
  const now = '2026-12-07T15:00:00.000Z'
  it.each([
    ['the last document arrives: counted afresh', 'under_review', { deadline_started_at: now }],
    ['documents requested: suspended', 'documents_pending', { deadline_started_at: null }],
    ['approved: kept', 'approved', {}],
    ['denied: kept', 'denied', {}],
    ['settled: kept', 'settled', {}],
    ['withdrawn: kept', 'withdrawn', {}],
  ] as const)('%s', (_, to, change) => {
    expect(deadlineStartAfter(to as ClaimStatus, now)).toEqual(change)
  })
})

describe('deadlineBounds', () => {
  it.each([
    [
      'São Paulo',
      SP,
      { overdueBefore: '2026-11-07T03:00:00.000Z', dueThisWeekBefore: '2026-11-14T03:00:00.000Z' },
    ],
    [
      'UTC',
      'UTC',
      { overdueBefore: '2026-11-07T00:00:00.000Z', dueThisWeekBefore: '2026-11-14T00:00:00.000Z' },
    ],
  ])('%s: 00:00 local 30 and 23 days before today', (_, zone, bounds) => {
    expect(deadlineBounds('2026-12-07T15:00:00.000Z', zone)).toEqual(bounds)
  })

  it('says what claimDeadline says, hour by hour over forty days, in both zones', () => {
    const now = '2026-12-07T01:30:00.000Z' // still 6 December in São Paulo
    for (const zone of [SP, 'UTC']) {
      const { overdueBefore, dueThisWeekBefore } = deadlineBounds(now, zone)
      for (let hour = 0; hour < 40 * 24; hour++) {
        const startedAt = new Date(Date.parse(now) - hour * 3_600_000).toISOString()
        const deadline = claimDeadline({ status: 'under_review', deadlineStartedAt: startedAt }, now, zone)
        const expected =
          startedAt < overdueBefore ? 'overdue' : startedAt < dueThisWeekBefore ? 'due_this_week' : 'on_time'
        expect(deadline?.state, `${zone}, started ${startedAt}`).toBe(expected)
      }
    }
  })
})

describe('ageInDays', () => {
  it.each([
    ['opened today', '2026-12-07T12:00:00.000Z', '2026-12-07T20:00:00.000Z', SP, 0],
    [
      'opened 23:00 local yesterday, two hours ago',
      '2026-12-01T02:00:00.000Z',
      '2026-12-01T04:00:00.000Z',
      SP,
      1,
    ],
    ['the same two instants in UTC', '2026-12-01T02:00:00.000Z', '2026-12-01T04:00:00.000Z', 'UTC', 0],
    ['a month ago', '2026-11-07T12:00:00.000Z', '2026-12-07T12:00:00.000Z', SP, 30],
  ])('%s', (_, openedAt, now, zone, days) => {
    expect(ageInDays(openedAt, now, zone)).toBe(days)
  })
})
