import { describe, expect, it } from 'vitest'
import { InvalidTokenError, TokenService } from './auth.service.js'

const KEYS = [{ kid: 'k1', secret: 'x'.repeat(32) }]
const TTL_SECONDS = 3600
const AUDIENCE = 'amparo:test'

function clockAt(iso: string) {
  const clock = { at: new Date(iso).getTime(), now: () => new Date(clock.at) }
  return clock
}

describe('TokenService.verify with its cache of verified tokens', () => {
  it('answers a verified token again until its expiry, and refuses it from the expiry on', async () => {
    const clock = clockAt('2026-11-21T10:00:00.000Z')
    const tokens = new TokenService(KEYS, TTL_SECONDS, clock, AUDIENCE)
    const { token, expiresAt } = await tokens.issue({ kind: 'client', id: 7 }, 3)

    await expect(tokens.verify(token)).resolves.toEqual({ subject: { kind: 'client', id: 7 }, partnerId: 3 })
    clock.at = expiresAt.getTime() - 1
    await expect(tokens.verify(token)).resolves.toEqual({ subject: { kind: 'client', id: 7 }, partnerId: 3 })
    clock.at = expiresAt.getTime()
    await expect(tokens.verify(token)).rejects.toBeInstanceOf(InvalidTokenError)
    // Still refused once out of the cache.
    await expect(tokens.verify(token)).rejects.toBeInstanceOf(InvalidTokenError)
  })

  it('never caches a refusal: a token signed with a key it does not hold stays refused', async () => {
    const clock = clockAt('2026-11-21T10:00:00.000Z')
    const foreign = await new TokenService(
      [{ kid: 'k1', secret: 'y'.repeat(32) }],
      TTL_SECONDS,
      clock,
      AUDIENCE,
    ).issue({ kind: 'user', id: 1 }, 3)
    const tokens = new TokenService(KEYS, TTL_SECONDS, clock, AUDIENCE)
    for (let i = 0; i < 2; i++) {
      await expect(tokens.verify(foreign.token)).rejects.toBeInstanceOf(InvalidTokenError)
    }
  })

  it("refuses another environment's token signed with the same key", async () => {
    const clock = clockAt('2026-11-21T10:00:00.000Z')
    const production = new TokenService(KEYS, TTL_SECONDS, clock, 'amparo:production')
    const { token } = await new TokenService(KEYS, TTL_SECONDS, clock, AUDIENCE).issue(
      { kind: 'client', id: 1 },
      1,
    )
    await expect(production.verify(token)).rejects.toBeInstanceOf(InvalidTokenError)
  })

  it('keeps answering correctly once the cache has been emptied for being full', async () => {
    const clock = clockAt('2026-11-21T10:00:00.000Z')
    const tokens = new TokenService(KEYS, TTL_SECONDS, clock, AUDIENCE)
    const issued = []
    for (let id = 1; id <= 10_050; id++) issued.push(await tokens.issue({ kind: 'client', id }, id))
    for (const [i, { token }] of issued.entries()) {
      expect((await tokens.verify(token)).partnerId).toBe(i + 1)
    }
    expect((await tokens.verify((issued[0] as { token: string }).token)).subject).toEqual({
      kind: 'client',
      id: 1,
    })
  })
})
