import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { isPostgres } from '../src/db/database.js'
import { expectedError } from './helpers/errors.js'
import {
  appWith,
  CARDS,
  CVV,
  cancel,
  card,
  contract,
  contractedAt,
  ctx,
  EXPIRED_AT,
  EXPIRED_UNPAID,
  expectError,
  first,
  INSTALLMENT_CENTS,
  INSTALLMENTS,
  installmentRow,
  installmentsOf,
  LAST_DAY_AT,
  ledger,
  logLines,
  NOW,
  PAID_AT,
  party,
  partyOf,
  pay,
  statusOf,
  subscriptionRow,
  useSubscriptionPaymentsWorld,
} from './helpers/world/subscription-payments.js'
import { bearer } from './helpers/world.js'

// An own-gateway partner has Amparo charge a card; no card data is kept or logged.

useSubscriptionPaymentsWorld()

describe('POST /subscriptions/{id}/payment', () => {
  it.each([
    [CARDS.visa, 'visa', '1111'],
    [CARDS.mastercard, 'mastercard', '4444'],
  ])(
    'approves %s: installment 1 paid, subscription pago, token/brand/last four kept',
    async (number, brand, last4) => {
      const p = await party('own')
      const s = await contract(p)
      const response = await pay(p, s.id, card(number, { holder: 'MARIA DA SILVA' }))
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json()).toMatchObject({
        id: s.id,
        status: 'pago',
        valor: INSTALLMENT_CENTS / 100,
        installments_count: INSTALLMENTS,
      })
      const [one, two] = await installmentsOf(p, s.id)
      expect(one).toMatchObject({ status: 'paid', status_label: 'Pago', paid_at: PAID_AT })
      expect(two).toMatchObject({ status: 'pending', paid_at: null })

      const row = await subscriptionRow(s.id)
      expect(row.card_token).toMatch(/^tok_test_approves_[0-9a-f]+$/)
      expect(row).toMatchObject({ card_brand: brand, card_last4: last4 })
      expect((await installmentRow(first(s).id)).locked_until).toBeNull()
      expect(await ledger(s.id)).toEqual([
        {
          installment_id: first(s).id,
          amount: INSTALLMENT_CENTS,
          route: 'card',
          outcome: 'approved',
          decline_code: null,
          transaction_id: expect.stringMatching(/^txn_test_/),
          created_at: NOW.toISOString(),
        },
      ])
    },
  )

  it.each([
    [CARDS.declined, 'card_declined', 'The card was declined.'],
    [CARDS.insufficientFunds, 'insufficient_funds', 'The card has insufficient funds.'],
    [CARDS.expired, 'expired_card', 'The card has expired.'],
  ])(
    'declines %s with 402 %s: installment 1 refused, subscription pending, nothing kept',
    async (number, code, message) => {
      const p = await party('own')
      const s = await contract(p)
      const response = await pay(p, s.id, card(number))
      expect(response.statusCode, response.body).toBe(402)
      expect(response.json()).toEqual(
        expectedError(response, 'card_declined', {
          message,
          errors: { creditCard: [message] },
          decline_code: code,
        }),
      )

      expect(await statusOf(p, s.id)).toBe('pending')
      const [one] = await installmentsOf(p, s.id)
      expect(one).toMatchObject({ status: 'refused', status_label: 'Recusado', paid_at: null })
      expect((await installmentRow(first(s).id)).locked_until).toBeNull()
      expect(await subscriptionRow(s.id)).toMatchObject({
        card_token: null,
        card_brand: null,
        card_last4: null,
      })
      expect(await ledger(s.id)).toEqual([
        {
          installment_id: first(s).id,
          amount: INSTALLMENT_CENTS,
          route: 'card',
          outcome: 'declined',
          decline_code: code,
          transaction_id: expect.stringMatching(/^txn_test_/),
          created_at: NOW.toISOString(),
        },
      ])
    },
  )

  it('pays a refused installment 1 on a later approved try, with a ledger row per attempt', async () => {
    const p = await party('own')
    const s = await contract(p)
    expect((await pay(p, s.id, card(CARDS.declined))).statusCode).toBe(402)
    expect((await pay(p, s.id, card(CARDS.insufficientFunds))).statusCode).toBe(402)
    const approved = await pay(p, s.id, card(CARDS.visa))
    expect(approved.statusCode, approved.body).toBe(200)
    expect(approved.json().status).toBe('pago')
    expect((await installmentsOf(p, s.id))[0]).toMatchObject({ status: 'paid', paid_at: PAID_AT })
    expect((await ledger(s.id)).map((r) => [r.installment_id, r.outcome, r.decline_code])).toEqual([
      [first(s).id, 'declined', 'card_declined'],
      [first(s).id, 'declined', 'insufficient_funds'],
      [first(s).id, 'approved', null],
    ])
    expect((await subscriptionRow(s.id)).card_last4).toBe('1111')
  })

  it('replays a kept decline, and a kept refusal, in the language of the retry', async () => {
    const p = await party('own')
    const s = await contract(p)
    const payIn = (language: string, payload: unknown, key: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/subscriptions/${s.id}/payment`,
        headers: { ...bearer(p.token), 'idempotency-key': key, 'accept-language': language },
        payload: payload as object,
      })
    const declined = card(CARDS.insufficientFunds)
    const first = await payIn('pt-BR', declined, 'decline-1')
    expect(first.statusCode).toBe(402)
    expect(first.json().message).toBe('O cartão não tem saldo suficiente.')
    const retry = await payIn('en', declined, 'decline-1')
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.headers['content-language']).toBeUndefined()
    expect(retry.json()).toMatchObject({
      code: 'card_declined',
      decline_code: 'insufficient_funds',
      message: 'The card has insufficient funds.',
      errors: { creditCard: ['The card has insufficient funds.'] },
      request_id: retry.headers['x-request-id'],
    })
    expect((await payIn('pt-BR', declined, 'decline-1')).json().message).toBe(first.json().message)

    // A refusal the error handler answered (not pending any more), kept the same way.
    expect((await pay(p, s.id, card(CARDS.visa))).statusCode).toBe(200)
    const refused = await payIn('en', card(CARDS.mastercard), 'refusal-1')
    expect(refused.statusCode).toBe(422)
    const again = await payIn('pt-BR', card(CARDS.mastercard), 'refusal-1')
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.headers['content-language']).toBe('pt-BR')
    expect(again.json().code).toBe(refused.json().code)
    expect(again.json().message).not.toBe(refused.json().message)
    expect(await ledger(s.id)).toHaveLength(2)
  })

  it('accepts a formatted number and MM/YY', async () => {
    const p = await party('own')
    const s = await contract(p)
    const response = await pay(p, s.id, card('4111 1111 1111 1111', { expiry: '11/26' }))
    expect(response.statusCode, response.body).toBe(200)
    expect((await subscriptionRow(s.id)).card_last4).toBe('1111')
  })

  it('refuses a malformed body under creditCard keys before charging anything', async () => {
    const p = await party('own')
    const s = await contract(p)
    expectError(await pay(p, s.id, {}), 422, 'creditCard')
    const missing = await pay(p, s.id, { creditCard: {} })
    expect(missing.statusCode).toBe(422)
    expect(Object.keys(missing.json().errors).sort()).toEqual([
      'creditCard.cvv',
      'creditCard.expiry',
      'creditCard.number',
    ])
    expectError(await pay(p, s.id, card(CARDS.visa, { number: '4'.repeat(33) })), 422, 'creditCard.number')
    expectError(
      await pay(p, s.id, { creditCard: { ...card(CARDS.visa).creditCard, cvv: 123 } }),
      422,
      'creditCard.cvv',
    )
    expectError(await pay(p, s.id, card(CARDS.visa, { holder: 'x'.repeat(101) })), 422, 'creditCard.holder')
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it.each([
    [
      'a failing Luhn check',
      { number: '4111111111111112' },
      'creditCard.number',
      'The card number is invalid.',
    ],
    ['month 13', { expiry: '1330' }, 'creditCard.expiry', 'The card expiry must be a month and year, MMYY.'],
    ['last month', { expiry: '1026' }, 'creditCard.expiry', 'The card has expired.'],
    ['a 2-digit code', { cvv: '12' }, 'creditCard.cvv', 'The card security code must be 3 or 4 digits.'],
  ])('refuses %s with 422 under its key, charging nothing', async (_label, change, key, message) => {
    const p = await party('own')
    const s = await contract(p)
    const body = expectError(await pay(p, s.id, card(CARDS.visa, change)), 422, key)
    expect(body.errors[key]).toEqual([message])
    expect(await ledger(s.id)).toEqual([])
    expect((await installmentsOf(p, s.id))[0]?.status).toBe('pending')
  })

  it('reports every card problem at once', async () => {
    const p = await party('own')
    const s = await contract(p)
    const response = await pay(p, s.id, { creditCard: { number: '1234', expiry: '0000', cvv: 'abc' } })
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(Object.keys(body.errors).sort()).toEqual([
      'creditCard.cvv',
      'creditCard.expiry',
      'creditCard.number',
    ])
    expect(body.message).toBe('The card number is invalid. (and 2 more errors)')
  })

  // Whatever the body: the mode is what the partner must fix first, not the card it sent.
  const anyBody = [card(CARDS.visa), {}, { creditCard: {} }, { creditCard: { number: '4'.repeat(40) } }, []]

  it('refuses an external-gateway partner with errors.gateway alone, whatever the body', async () => {
    const p = await party('external')
    const s = await contract(p)
    for (const payload of anyBody) {
      const body = expectError(await pay(p, s.id, payload), 422, 'gateway')
      expect(body.message).toBe(
        'This partner uses the external gateway: notify payments through the notify-payment call.',
      )
    }
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it('checks ownership before the gateway mode: another partner’s or an unknown subscription is 404', async () => {
    const p = await party('external')
    const theirs = await contract(await partyOf(ctx.db, ctx.app, 'own'))
    for (const id of [theirs.id, 2_000_000_000]) {
      for (const payload of [card(CARDS.visa), {}]) expect((await pay(p, id, payload)).statusCode).toBe(404)
    }
    const mine = await contract(p)
    for (const payload of [card(CARDS.visa), {}]) expectError(await pay(p, mine.id, payload), 422, 'gateway')
    // A malformed id names no subscription at all: 404, as on every route.
    for (const id of ['abc', '0']) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/subscriptions/${id}/payment`,
        headers: bearer(p.token),
        payload: {},
      })
      expect(response.statusCode, response.body).toBe(404)
    }
  })

  it('refuses with errors.gateway when the environment has no card gateway, whatever the body', async () => {
    const app = await appWith(null)
    const p = await party('own')
    const s = await contract(p)
    for (const payload of anyBody) {
      const body = expectError(await pay(p, s.id, payload, app), 422, 'gateway')
      expect(body.message).toBe('Card payments are not available in this environment.')
    }
    expect(await ledger(s.id)).toEqual([])
  })

  it('refuses a subscription that is not pending with errors.status, charging nothing', async () => {
    const p = await party('own')
    const paid = await contract(p)
    expect((await pay(p, paid.id, card(CARDS.visa))).statusCode).toBe(200)
    expectError(await pay(p, paid.id, card(CARDS.mastercard)), 422, 'status')
    expect(await ledger(paid.id)).toHaveLength(1)
    expect((await subscriptionRow(paid.id)).card_last4).toBe('1111')

    const canceled = await contract(p)
    expect((await cancel(p, canceled.id)).statusCode).toBe(200)
    expectError(await pay(p, canceled.id, card(CARDS.visa)), 422, 'status')
    expect(await ledger(canceled.id)).toEqual([])
  })

  it('refuses a subscription past its 30 unpaid days with errors.status, charging nothing', async () => {
    const p = await party('own')
    // Day 58, and the first day the worker would cancel it.
    for (const at of ['2026-09-24T15:00:00.000Z', EXPIRED_AT]) {
      const s = await contract(p)
      await contractedAt(s.id, at)
      const body = expectError(await pay(p, s.id, card(CARDS.visa)), 422, 'status')
      expect(body.message).toBe(EXPIRED_UNPAID)
      expect(await ledger(s.id)).toEqual([])
      expect(await installmentRow(first(s).id)).toMatchObject({ status: 'pending', locked_until: null })
      expect(await subscriptionRow(s.id)).toMatchObject({ status: 'pending', card_token: null })
    }
    // A card declined in time does not keep it open either.
    const refused = await contract(p)
    expect((await pay(p, refused.id, card(CARDS.declined))).statusCode).toBe(402)
    await contractedAt(refused.id, EXPIRED_AT)
    expectError(await pay(p, refused.id, card(CARDS.visa)), 422, 'status')
    expect((await ledger(refused.id)).map((r) => r.outcome)).toEqual(['declined'])

    const lastDay = await contract(p)
    await contractedAt(lastDay.id, LAST_DAY_AT)
    const paid = await pay(p, lastDay.id, card(CARDS.visa))
    expect(paid.statusCode, paid.body).toBe(200)
    expect(paid.json().status).toBe('pago')
  })

  it('answers 404 for another partner’s or an unknown subscription', async () => {
    const p = await party('own')
    const stranger = await partyOf(ctx.db, ctx.app, 'own')
    const theirs = await contract(stranger)
    for (const id of [theirs.id, 2_000_000_000]) {
      const response = await pay(p, id, card(CARDS.visa))
      expect(response.statusCode, response.body).toBe(404)
    }
    expect(await ledger(theirs.id)).toEqual([])
    expect(await statusOf(stranger, theirs.id)).toBe('pending')
  })
})

describe('card data at rest and in logs', () => {
  it('appears in no table and no log line', async () => {
    // Make sure every sandbox card of this file went through at least once, whatever ran before.
    const p = await party('own')
    for (const number of Object.values(CARDS)) await pay(p, (await contract(p)).id, card(number))

    const current = isPostgres(ctx.db)
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(ctx.db)).rows[0]?.schema
      : undefined
    const tables = (await ctx.db.introspection.getTables()).filter((t) => t.schema === current)
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['subscriptions', 'installments', 'payments']),
    )
    const dump: string[] = []
    for (const table of tables) {
      const rows = await ctx.db
        .selectFrom(table.name as 'payments')
        .selectAll()
        .execute()
      dump.push(JSON.stringify(rows))
    }
    const everything = dump.join('\n')
    // The dump is real: it holds what the payments did keep.
    expect(everything).toContain('tok_test_')
    expect(everything).toContain('"card_last4":"4444"')

    const logs = logLines.join('')
    expect(logs).toContain('/payment')
    // Not inside a run of hex digits and dashes: request ids and hashes (UUIDs, hex) hold any
    // four digits by chance (`…-9876-…` in about one id of 13,000); a leaked code stands alone.
    const cvv = new RegExp(`(?<![0-9a-fA-F-])${CVV}(?![0-9a-fA-F-])`)
    for (const [where, text] of [
      ['database', everything],
      ['logs', logs],
    ] as const) {
      for (const number of Object.values(CARDS))
        expect(text.includes(number), `${number} in ${where}`).toBe(false)
      expect(cvv.test(text), `security code in ${where}`).toBe(false)
      expect(text.includes('"cvv"'), `a cvv field in ${where}`).toBe(false)
    }
  })
})
