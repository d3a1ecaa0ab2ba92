import { describe, expect, it } from 'vitest'
import { coverageTypesNamedBy } from '../plans/plan.rules.js'
import {
  canRequestDocuments,
  claimNumber,
  documentsRequestErrors,
  fraudSignals,
  fraudWindowsOf,
  missingDocumentKinds,
  noticeRefusal,
  perilCovered,
  policeReportFromTheFuture,
  policeReportMissing,
  requiredDocuments,
  signalsAfterUpload,
  yearlyLimitReached,
  yearlyLimitSince,
} from './claim.rules.js'

describe('policeReportFromTheFuture', () => {
  const zone = 'America/Sao_Paulo'
  it.each([
    // 02:30 UTC on 22 November is still the 21st in São Paulo (UTC−3).
    ['today in the service zone, tomorrow in UTC', '2026-11-22T02:30:00.000Z', '2026-11-21', false],
    ['yesterday', '2026-11-22T02:30:00.000Z', '2026-11-20', false],
    ['tomorrow in the service zone, today in UTC', '2026-11-22T02:30:00.000Z', '2026-11-22', true],
    ['years ahead', '2026-11-21T15:00:00.000Z', '2031-01-01', true],
  ])('%s', (_, now, issuedOn, future) => {
    expect(policeReportFromTheFuture(issuedOn, now, zone)).toBe(future)
  })
})

describe('noticeRefusal', () => {
  const now = '2026-11-21T15:00:00.000Z'
  it.each([
    ['a minute ago', '2026-11-21T14:59:00.000Z', 30, null],
    ['exactly 30 days ago', '2026-10-22T15:00:00.000Z', 30, null],
    [
      '30 days and a second ago',
      '2026-10-22T14:59:59.000Z',
      30,
      'The claim must be opened within 30 days of the loss.',
    ],
    ['in the future', '2026-11-21T15:00:01.000Z', 30, 'The occurred at must not be in the future.'],
    [
      '7 days ago on a 5-day plan',
      '2026-11-14T15:00:00.000Z',
      5,
      'The claim must be opened within 5 days of the loss.',
    ],
  ])('%s', (_, occurred, days, expected) => {
    expect(noticeRefusal(occurred, now, days)).toBe(expected)
  })
})

describe('yearly limit', () => {
  it.each([
    [0, 2, false],
    [1, 2, false],
    [2, 2, true],
    [1, 1, true],
  ])('%i approved of %i allowed → reached %s', (count, max, expected) => {
    expect(yearlyLimitReached(count, max)).toBe(expected)
  })
  it('counts from 365 days before the loss', () => {
    expect(yearlyLimitSince('2026-11-21T15:00:00.000Z')).toBe('2025-11-21T15:00:00.000Z')
  })
})

describe('perils, police report, documents', () => {
  it.each([
    ['robbery', ['robbery'], true],
    ['liquid_damage', ['robbery', 'accidental_damage'], false],
  ] as const)('%s covered by %j → %s', (type, types, expected) => {
    expect(perilCovered(type, types)).toBe(expected)
  })
  it.each([
    ['robbery', undefined, true],
    ['qualified_theft', '  ', true],
    ['robbery', 'BO-1', false],
    ['accidental_damage', undefined, false],
  ] as const)('%s with report %j → missing %s', (type, number, expected) => {
    expect(policeReportMissing(type, number)).toBe(expected)
  })
  it.each([
    ['robbery', [], ['police_report', 'imei_block', 'invoice']],
    ['qualified_theft', ['invoice', 'photo'], ['police_report', 'imei_block']],
    ['accidental_damage', [], ['photo', 'invoice']],
    ['liquid_damage', ['photo', 'invoice'], []],
  ] as const)('%s with %j misses %j', (type, uploaded, missing) => {
    expect(missingDocumentKinds(type, uploaded)).toEqual(missing)
  })
  it.each([
    [
      ['Roubo e furto qualificado', 'Quebra acidental', 'Danos por líquidos'],
      ['robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage'],
    ],
    [['Quebra acidental'], ['accidental_damage']],
    [
      ['LÍQUIDO', 'roubo'],
      ['robbery', 'liquid_damage'],
    ],
    [['Assistência técnica'], []],
  ])('coverages %j name %j', (coverages, types) => {
    expect(coverageTypesNamedBy(coverages)).toEqual(types)
  })
})

describe('fraudSignals', () => {
  const base = {
    occurredAt: '2026-11-21T15:00:00.000Z',
    coverageStartedAt: '2026-01-01T00:00:00.000Z',
    sameDeviceClaims: 0,
    sameCustomerClaims: 0,
    lastCardChangeAt: null,
  }
  it.each([
    ['none', base, []],
    ['early claim', { ...base, coverageStartedAt: '2026-11-01T00:00:00.000Z' }, ['early_claim']],
    ['repeat device', { ...base, sameDeviceClaims: 1 }, ['repeat_device']],
    ['one other claim of the customer', { ...base, sameCustomerClaims: 1 }, []],
    ['two other claims of the customer', { ...base, sameCustomerClaims: 2 }, ['repeat_customer']],
    [
      'card replaced 3 days before',
      { ...base, lastCardChangeAt: '2026-11-18T15:00:00.000Z' },
      ['recent_card_change'],
    ],
    ['card replaced 8 days before', { ...base, lastCardChangeAt: '2026-11-13T15:00:00.000Z' }, []],
  ] as const)('%s', (_, facts, expected) => {
    expect(fraudSignals(facts)).toEqual(expected)
  })
})

describe('signalsAfterUpload', () => {
  it.each([
    ['bytes seen nowhere else', [], false, null],
    ['bytes on another customer’s claim', [], true, ['reused_document']],
    [
      'kept in the list’s order',
      ['early_claim', 'repeat_device'],
      true,
      ['early_claim', 'repeat_device', 'reused_document'],
    ],
    ['raised once', ['early_claim', 'reused_document'], true, null],
    ['other signals left as they are', ['recent_card_change'], false, null],
  ] as const)('%s', (_, signals, reused, expected) => {
    expect(signalsAfterUpload(signals, reused)).toEqual(expected)
  })
})

describe('fraudWindowsOf', () => {
  it.each([
    ['2026-11-21T15:00:00.000Z', '2024-11-21T15:00:00.000Z', '2025-11-21T15:00:00.000Z'],
    // Calendar months, in UTC: a leap day looks back to the 1st of March.
    ['2028-02-29T12:00:00.000Z', '2026-03-01T12:00:00.000Z', '2027-03-01T12:00:00.000Z'],
  ])('opened %s: device since %s, customer since %s', (openedAt, deviceSince, customerSince) => {
    expect(fraudWindowsOf(openedAt)).toEqual({ deviceSince, customerSince })
  })
})

it('numbers claims SIN-<year>-<6 digits>', () => {
  expect(claimNumber(2026, 1)).toBe('SIN-2026-000001')
  expect(claimNumber(2027, 1234567)).toBe('SIN-2027-1234567')
})

describe('requesting documents', () => {
  it('is asked only of a claim under review', () => {
    expect(canRequestDocuments('under_review')).toBe(true)
    for (const status of ['documents_pending', 'approved', 'denied', 'settled', 'withdrawn'] as const) {
      expect(canRequestDocuments(status)).toBe(false)
    }
  })

  it.each([
    [['invoice'], 'Envie a nota fiscal legível.', {}],
    [[], 'Envie a nota fiscal legível.', { kinds: expect.any(Array) }],
    [['invoice', 'passport'], 'Envie a nota fiscal legível.', { kinds: expect.any(Array) }],
    [['photo'], '  curta    ', { message: expect.any(Array) }],
    [['photo'], 'x'.repeat(500), {}],
    [['photo'], 'x'.repeat(501), { message: expect.any(Array) }],
  ])('%j with a message of %#: %j', (kinds, message, errors) => {
    expect(documentsRequestErrors({ kinds, message })).toEqual(errors)
  })

  const docs = (...kinds: ('photo' | 'invoice' | 'repair_quote')[]) =>
    kinds.map((kind, i) => ({ id: i + 1, kind }))

  it.each([
    ['no request: the type’s missing kinds', docs('photo'), null, ['invoice']],
    [
      'asked for a new kind',
      docs('photo', 'invoice'),
      { kinds: ['repair_quote'], after: 2 },
      ['repair_quote'],
    ],
    [
      'answered by a later upload',
      docs('photo', 'invoice', 'repair_quote'),
      { kinds: ['repair_quote'], after: 2 },
      [],
    ],
    [
      'a kind held before the request is asked again',
      docs('photo', 'invoice'),
      { kinds: ['invoice'], after: 2 },
      ['invoice'],
    ],
    [
      'answered by another invoice',
      docs('photo', 'invoice', 'invoice'),
      { kinds: ['invoice'], after: 2 },
      [],
    ],
    [
      'a kind still missing is named once',
      docs('photo'),
      { kinds: ['invoice', 'invoice'], after: 1 },
      ['invoice'],
    ],
  ] as const)('%s', (_, documents, request, required) => {
    expect(requiredDocuments('accidental_damage', documents, request)).toEqual(required)
  })
})
