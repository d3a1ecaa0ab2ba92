import { describe, expect, it } from 'vitest'
import { ctx, now, ok, seller, useClaimsWorld } from './helpers/claims-world.js'
import { PORTAL_ORIGIN, portalCookie, portalOver } from './helpers/portal.js'

// Signing in to the insured's portal by a code sent by e-mail (README, Portal do segurado): the
// code's limits and expiry, and answers that do not tell whether a document is anyone's.

useClaimsWorld()
const MINUTE = 60_000
/** The portal's clock runs ahead of the world's by `shift`: a test moves it to expire codes and sessions. */
let shift = 0
const portalCtx = portalOver(() => ctx, { now: () => new Date(now.getTime() + shift) })

const post = (url: string, payload: object, cookie?: string) =>
  portalCtx.portal.inject({
    method: 'POST',
    url,
    payload,
    headers: { origin: PORTAL_ORIGIN, 'accept-language': 'pt-BR', ...(cookie && { cookie }) },
  })
const askCode = (document: string) => post('/api/session/code', { document })
const signIn = (document: string, code: string) => post('/api/session', { document, code })
const lastCode = () => portalCtx.delivered.at(-1)?.code ?? ''
/** A code that is not the one sent (the sent one's last digit moved). */
const wrong = (code: string) => code.slice(0, 5) + String((Number(code[5]) + 1) % 10)

// Scrypt hashes every code on purpose: room for a busy machine.
describe('signing in by a code', { timeout: 120_000 }, () => {
  it('sends a code to the masked address and signs in with it, once', async () => {
    const s = await seller()
    const answer = await askCode(s.customer.document)
    expect(answer.statusCode, answer.body).toBe(200)
    const email = String(
      (
        await ctx.db
          .selectFrom('customers')
          .select('email')
          .where('id', '=', s.customer.id)
          .executeTakeFirstOrThrow()
      ).email,
    )
    expect(answer.json()).toEqual({
      masked_email: `${email[0]}***@e***.com`,
      expires_in_seconds: 600,
    })
    expect(portalCtx.delivered.at(-1)?.customerId).toBe(s.customer.id)
    const code = lastCode()
    expect(code).toMatch(/^\d{6}$/)
    // The code reaches the insured by the sign-in message only: kept in test, shown to the partner.
    const messages = await ok<{ data: { kind: string; subject: string; to: string }[] }>(
      s,
      'GET',
      `/sandbox/messages?customer_id=${s.customer.id}&kind=sign_in`,
    )
    expect(messages.data).toEqual([
      expect.objectContaining({ subject: `Seu código de acesso: ${code}`, to: email }),
    ])
    expect(answer.body).not.toContain(code)
    // The code is stored hashed: the table does not hold its digits.
    const stored = await ctx.db
      .selectFrom('portal_codes')
      .select('code_hash')
      .where('document', '=', s.customer.document)
      .execute()
    expect(stored.map((r) => r.code_hash).join()).not.toContain(code)

    const signedIn = await signIn(s.customer.document, code)
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    const setCookie = String(signedIn.headers['set-cookie'])
    expect(setCookie).toMatch(/HttpOnly/i)
    expect(setCookie).toMatch(/SameSite=Strict/i)
    expect(setCookie).not.toMatch(/Secure/i)
    const session = await portalCtx.portal.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie: portalCookie(setCookie) },
    })
    expect(session.statusCode).toBe(200)
    expect(session.json()).toMatchObject({ document_kind: 'cpf', time_zone: 'America/Sao_Paulo' })

    // Used: a second sign-in with it fails.
    expect((await signIn(s.customer.document, code)).statusCode).toBe(401)
    const audit = await ctx.db
      .selectFrom('audit_log')
      .select(['actor_label', 'action'])
      .where('action', '=', 'portal.sign_in')
      .execute()
    expect(audit).toContainEqual({ actor_label: `insured:${s.customer.id}`, action: 'portal.sign_in' })
  })

  it('answers an unknown document as a known one, the same mask each time, and sends nothing', async () => {
    const unknown = '52998224725'
    const sent = portalCtx.delivered.length
    const first = await askCode(unknown)
    const second = await askCode('529.982.247-25')
    expect(first.statusCode).toBe(200)
    expect(second.json()).toEqual(first.json())
    expect(first.json().masked_email).toMatch(/^[a-z]\*\*\*@[a-z]\*\*\*\.[a-z.]+$/)
    expect(Object.keys(first.json())).toEqual(
      Object.keys((await askCode((await seller()).customer.document)).json()),
    )
    expect(portalCtx.delivered.length).toBe(sent + 1)
    expect((await signIn(unknown, '000000')).statusCode).toBe(401)
    // An invalid document is a 422 naming the field, whoever asks.
    const invalid = await askCode('123.456.789-00')
    expect(invalid.statusCode).toBe(422)
    expect(invalid.json().errors).toHaveProperty('document')
  })

  it('allows 5 codes an hour per document, known or not (429 with Retry-After), then again', async () => {
    const known = (await seller()).customer.document
    for (const document of [known, '11144477735']) {
      for (let i = 0; i < 5; i++) expect((await askCode(document)).statusCode).toBe(200)
      const refused = await askCode(document)
      expect(refused.statusCode).toBe(429)
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    }
    shift += 61 * MINUTE
    expect((await askCode(known)).statusCode).toBe(200)
  })

  it('allows 5 codes an hour per address: past it, the same answer and nothing sent', async () => {
    const a = await seller()
    // Five more customers under other documents sharing a's address.
    const email = (
      await ctx.db
        .selectFrom('customers')
        .select('email')
        .where('id', '=', a.customer.id)
        .executeTakeFirstOrThrow()
    ).email
    const others: Awaited<ReturnType<typeof seller>>[] = []
    for (let i = 0; i < 5; i++) others.push(await seller())
    const { retryingTransaction } = await import('../src/db/transaction.js')
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('customers')
        .set({ email })
        .where(
          'id',
          'in',
          others.map((o) => o.customer.id),
        )
        .execute(),
    )
    for (const other of others) expect((await askCode(other.customer.document)).statusCode).toBe(200)
    const sent = portalCtx.delivered.length
    const answer = await askCode(a.customer.document)
    expect(answer.statusCode).toBe(200)
    expect(answer.json().masked_email).toMatch(/\*\*\*@e\*\*\*\.com$/)
    expect(portalCtx.delivered.length).toBe(sent)
  })

  it('accepts 5 tries of a code, not a 6th, even the right one', async () => {
    const s = await seller()
    await askCode(s.customer.document)
    const code = lastCode()
    for (let i = 0; i < 5; i++) {
      const answer = await signIn(s.customer.document, wrong(code))
      expect(answer.statusCode).toBe(401)
      expect(answer.json().code).toBe('invalid_credentials')
    }
    expect((await signIn(s.customer.document, code)).statusCode).toBe(401)
    // A new code works.
    await askCode(s.customer.document)
    expect((await signIn(s.customer.document, lastCode())).statusCode).toBe(200)
  })

  it('expires a code after 10 minutes, and a session after 30 idle minutes', async () => {
    const s = await seller()
    await askCode(s.customer.document)
    const late = lastCode()
    shift += 10 * MINUTE
    expect((await signIn(s.customer.document, late)).statusCode).toBe(401)

    await askCode(s.customer.document)
    shift += 9 * MINUTE
    const signedIn = await signIn(s.customer.document, lastCode())
    expect(signedIn.statusCode).toBe(200)
    const cookie = portalCookie(signedIn.headers['set-cookie'])
    const read = () => portalCtx.portal.inject({ method: 'GET', url: '/api/contracts', headers: { cookie } })
    shift += 29 * MINUTE
    expect((await read()).statusCode).toBe(200)
    shift += 29 * MINUTE
    expect((await read()).statusCode).toBe(200)
    shift += 30 * MINUTE
    expect((await read()).statusCode).toBe(401)
  })

  it('refuses writes from another origin, and reads without a session', async () => {
    const refused = await portalCtx.portal.inject({
      method: 'POST',
      url: '/api/session/code',
      payload: { document: '52998224725' },
      headers: { origin: 'https://evil.example' },
    })
    expect(refused.statusCode).toBe(403)
    expect((await portalCtx.portal.inject({ method: 'GET', url: '/api/contracts' })).statusCode).toBe(401)
  })
})
