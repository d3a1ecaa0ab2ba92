import { describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { createSignInLink } from '../src/modules/messages/sign-in-link.service.js'
import { loggerOptions } from '../src/plugins/logging.js'
import { buildPortalApp } from '../src/portal/app.js'
import { ctx, now, seller, useClaimsWorld } from './helpers/claims-world.js'
import { PORTAL_ORIGIN, portalCookie, portalOver } from './helpers/portal.js'

// Signing in to the insured's portal by the single-use link a message carries (README, Portal do
// segurado): once, within 24 hours, one answer for every link that does not sign in; and the
// per-address limit of the portal's sign-in.

useClaimsWorld()
const HOUR = 3_600_000
/** The portal's clock runs ahead of the world's by `shift`: a test moves it to expire links. */
let shift = 0
const portalNow = () => new Date(now.getTime() + shift)
const portalCtx = portalOver(() => ctx, { now: portalNow })

/** A link as a message would carry it, made at the portal's current time: its token. */
async function linkOf(customerId: number): Promise<{ address: string; token: string }> {
  const portalUrl = ctx.config.mail.portalUrl as string
  const address = await retryingTransaction(ctx.db, (trx) =>
    createSignInLink(trx, customerId, { portalUrl, now: portalNow() }),
  )
  return { address, token: /#\/entrar\/([A-Za-z0-9_-]+)$/.exec(address)?.[1] ?? '' }
}

const useLink = (token: string, remoteAddress = '127.0.0.1') =>
  portalCtx.portal.inject({
    method: 'POST',
    url: '/api/session/link',
    payload: { token },
    remoteAddress,
    headers: { origin: PORTAL_ORIGIN, 'accept-language': 'pt-BR' },
  })

/** The parts of a refusal that must not tell one refused link from another. */
const refusal = (answer: Awaited<ReturnType<typeof useLink>>) => {
  const { request_id: _, ...body } = answer.json()
  return { status: answer.statusCode, body }
}

describe('signing in by a link', () => {
  it('opens the portal page with the token in the fragment, and signs in once, audited', async () => {
    const s = await seller()
    const { address, token } = await linkOf(s.customer.id)
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:3002\/#\/entrar\/[A-Za-z0-9_-]{43}$/)
    // Nothing personal in it.
    expect(address).not.toContain(s.customer.document)

    const signedIn = await useLink(token)
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect(signedIn.json()).toMatchObject({ document_kind: 'cpf', time_zone: 'America/Sao_Paulo' })
    expect(String(signedIn.headers['set-cookie'])).toMatch(/HttpOnly/i)
    const session = await portalCtx.portal.inject({
      method: 'GET',
      url: '/api/contracts',
      headers: { cookie: portalCookie(signedIn.headers['set-cookie']) },
    })
    expect(session.statusCode).toBe(200)

    const again = await useLink(token)
    expect(again.statusCode).toBe(401)
    expect(again.json()).toMatchObject({
      code: 'invalid_credentials',
      message: 'Este link de acesso não vale mais: peça um código por e-mail.',
    })
    const audit = await ctx.db
      .selectFrom('audit_log')
      .select(['actor_label', 'action', 'after'])
      .where('action', '=', 'portal.sign_in')
      .where('actor_label', '=', `insured:${s.customer.id}`)
      .execute()
    expect(audit.map((row) => JSON.parse(row.after ?? '{}'))).toEqual([{ method: 'link' }])
  })

  it('lets a link in for 24 hours, not after', async () => {
    const s = await seller()
    const early = await linkOf(s.customer.id)
    const late = await linkOf(s.customer.id)
    shift += 24 * HOUR - 60_000
    expect((await useLink(early.token)).statusCode).toBe(200)
    shift += 60_000
    const expired = await useLink(late.token)
    expect(expired.statusCode).toBe(401)
  })

  it('answers an unknown, a used, an expired and a malformed link alike', async () => {
    const s = await seller()
    const used = await linkOf(s.customer.id)
    expect((await useLink(used.token)).statusCode).toBe(200)
    const expired = await linkOf(s.customer.id)
    shift += 25 * HOUR
    const unknown = `${used.token.slice(0, -2)}xx`
    const answers = [
      await useLink(used.token),
      await useLink(expired.token),
      await useLink(unknown),
      await useLink('not-a-token'),
    ].map(refusal)
    for (const answer of answers) expect(answer).toEqual(answers[0])
    expect(answers[0]?.status).toBe(401)
    // A body without a token is malformed, whoever sends it.
    const empty = await portalCtx.portal.inject({
      method: 'POST',
      url: '/api/session/link',
      payload: {},
      headers: { origin: PORTAL_ORIGIN },
    })
    expect(empty.statusCode).toBe(422)
  })

  it('refuses a link sent from another origin', async () => {
    const s = await seller()
    const { token } = await linkOf(s.customer.id)
    const refused = await portalCtx.portal.inject({
      method: 'POST',
      url: '/api/session/link',
      payload: { token },
      headers: { origin: 'https://evil.example' },
    })
    expect(refused.statusCode).toBe(403)
    // Not used by the refused request.
    expect((await useLink(token)).statusCode).toBe(200)
  })
})

describe('the link in the logs', () => {
  it('is never written, whether it signs in or not', async () => {
    const lines: string[] = []
    const logged = await buildPortalApp({
      config: ctx.config,
      db: ctx.db,
      clock: { now: portalNow },
      logger: loggerOptions('trace', { write: (line) => void lines.push(line) }),
      staticRoot: null,
    })
    try {
      const s = await seller()
      const { token } = await linkOf(s.customer.id)
      for (let i = 0; i < 2; i++) {
        const answer = await logged.inject({
          method: 'POST',
          url: '/api/session/link',
          payload: { token },
          headers: { origin: PORTAL_ORIGIN },
        })
        expect(answer.statusCode).toBe(i === 0 ? 200 : 401)
      }
      expect(lines.length).toBeGreaterThan(0)
      expect(lines.join('\n')).not.toContain(token)
    } finally {
      await logged.close()
    }
  })
})

describe('the sign-in limit per client address', () => {
  it('answers 429 with Retry-After past the limit, to that address only, on every sign-in route', async () => {
    const limited = await buildPortalApp({
      config: { ...ctx.config, rateLimits: { ...ctx.config.rateLimits, loginPerClient: 3 } },
      db: ctx.db,
      clock: { now: portalNow },
      logger: false,
      staticRoot: null,
    })
    try {
      const post = (url: string, payload: object, remoteAddress: string) =>
        limited.inject({
          method: 'POST',
          url,
          payload,
          remoteAddress,
          headers: { origin: PORTAL_ORIGIN, 'accept-language': 'pt-BR' },
        })
      const from = '198.51.100.7'
      // Malformed bodies count too: the limit is counted before the body is read.
      expect((await post('/api/session/code', { document: '123' }, from)).statusCode).toBe(422)
      expect((await post('/api/session', { document: '123', code: '1' }, from)).statusCode).toBe(422)
      expect((await post('/api/session/link', { token: 'x' }, from)).statusCode).toBe(401)
      for (const [url, payload] of [
        ['/api/session/code', { document: '52998224725' }],
        ['/api/session', { document: '52998224725', code: '123456' }],
        ['/api/session/link', { token: 'x' }],
      ] as const) {
        const refused = await post(url, payload, from)
        expect(refused.statusCode, url).toBe(429)
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
        expect(refused.json()).toMatchObject({
          code: 'rate_limited',
          message: 'Muitas tentativas de entrar a partir deste endereço: tente de novo em um minuto.',
        })
      }
      // Another address, and reading the session, are not limited.
      expect((await post('/api/session/link', { token: 'x' }, '198.51.100.8')).statusCode).toBe(401)
      const session = await limited.inject({ method: 'GET', url: '/api/session', remoteAddress: from })
      expect(session.statusCode).toBe(401)
    } finally {
      await limited.close()
    }
  })
})
