import { describe, expect, it } from 'vitest'
import {
  codeLimitReached,
  codeUsable,
  maskEmail,
  maskFromDigest,
  portalSessionLive,
  readCode,
  retryAfterSeconds,
} from './portal-sign-in.rules.js'

describe('maskEmail', () => {
  it.each([
    ['ana.souza@example.com', 'a***@e***.com'],
    ['b@uol.com.br', 'b***@u***.br'],
    ['x@localhost', 'x***@l***'],
  ])('%s → %s', (email, masked) => expect(maskEmail(email)).toBe(masked))
})

describe('maskFromDigest', () => {
  it.each([
    [[0, 0], 'a***@g***.com'],
    [[25, 4], 'z***@u***.br'],
    [[26, 6], 'a***@g***.com'],
  ])('%j → %s', (bytes, mask) => expect(maskFromDigest(Uint8Array.from(bytes))).toBe(mask))
})

describe('readCode', () => {
  it.each([
    ['123456', '123456'],
    [' 012 345 ', '012345'],
    ['123-456', '123456'],
    ['12345', null],
    ['1234567', null],
    ['12a456', null],
  ])('%j → %j', (input, code) => expect(readCode(input)).toBe(code))
})

describe('codeUsable', () => {
  const now = new Date('2026-12-07T12:00:00Z')
  it.each([
    [{ expires_at: '2026-12-07T12:05:00Z', tries: 0, used_at: null }, true],
    [{ expires_at: '2026-12-07T12:05:00Z', tries: 4, used_at: null }, true],
    [{ expires_at: '2026-12-07T12:05:00Z', tries: 5, used_at: null }, false],
    [{ expires_at: '2026-12-07T12:00:00Z', tries: 0, used_at: null }, false],
    [{ expires_at: '2026-12-07T12:05:00Z', tries: 0, used_at: '2026-12-07T11:59:00Z' }, false],
  ])('%j → %s', (code, usable) => expect(codeUsable(code, now)).toBe(usable))
})

describe('limits and sessions', () => {
  it('allows 5 codes an hour', () => {
    expect(codeLimitReached(4)).toBe(false)
    expect(codeLimitReached(5)).toBe(true)
  })

  it('retries when the oldest code leaves the hour', () => {
    expect(retryAfterSeconds('2026-12-07T11:30:00Z', new Date('2026-12-07T12:00:00Z'))).toBe(1800)
  })

  it('ends a session after 30 idle minutes or 12 hours', () => {
    const session = { last_seen_at: '2026-12-07T12:00:00Z', expires_at: '2026-12-08T00:00:00Z' }
    expect(portalSessionLive(session, new Date('2026-12-07T12:29:59Z'))).toBe(true)
    expect(portalSessionLive(session, new Date('2026-12-07T12:30:00Z'))).toBe(false)
    expect(
      portalSessionLive(
        { ...session, last_seen_at: '2026-12-08T00:00:00Z' },
        new Date('2026-12-08T00:00:00Z'),
      ),
    ).toBe(false)
  })
})
