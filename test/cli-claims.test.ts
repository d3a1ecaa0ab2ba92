import { beforeAll, describe, expect, it } from 'vitest'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  eventsOf,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { amparo, app, json, main, useCliWorld } from './helpers/cli.js'
import { bearer } from './helpers/world.js'

// amparo claim list|show|approve|deny|settle: the operator's commands (README, Claims).

useCliWorld()

type Claim = {
  id: number
  number: string
  status: string
  partner_id: number
  fraud_signals: string[]
  franchise: number
  lmi: number
  decision: null | {
    outcome: string
    settlement_method: string | null
    approved_amount: number | null
    payable_amount: number | null
    reason_code: string | null
    note: string | null
  }
  settlement: null | { reference: string | null; settled_at: string }
}

let p: ClaimParty
let other: ClaimParty

beforeAll(async () => {
  const model = await main.db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  p = await claimParty(app, main.db, model.id)
  other = await claimParty(app, main.db, model.id)
})

/** A refusal: exit code 2 and one line on stderr, nothing on stdout. */
async function refused(...argv: string[]): Promise<string> {
  const result = await amparo(...argv)
  expect(result.code, result.out.join('\n')).toBe(2)
  expect(result.out).toEqual([])
  expect(result.err).toHaveLength(1)
  return result.err[0] as string
}

const claimRow = (id: number) =>
  main.db.selectFrom('claims').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

describe('amparo claim approve', () => {
  it('approves a claim under review with the payable amount = approved − franchise (R$ 974.85 here)', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    const claim = await json<Claim>(
      main.env,
      'claim',
      'approve',
      String(id),
      '--method',
      'repair',
      '--amount',
      '1500.10',
    )
    expect(claim.status).toBe('approved')
    expect(claim.franchise).toBe(974.85)
    expect(claim.decision).toMatchObject({
      outcome: 'approved',
      settlement_method: 'repair',
      approved_amount: 1500.1,
      payable_amount: 525.25,
      reason_code: null,
    })
    expect(await claimRow(id)).toMatchObject({ approved_amount: 150_010, payable_amount: 52_525 })
    expect(await eventsOf(main.db, 'claim.approved', id)).toHaveLength(1)
  })

  it('pays nothing when the franchise exceeds the approved amount', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    const claim = await json<Claim>(
      main.env,
      'claim',
      'approve',
      String(id),
      '--method',
      'repair',
      '--amount',
      '500',
    )
    expect(claim.decision?.payable_amount).toBe(0)
  })

  it('takes the claim number as well as its id, and prints one line without --json', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    const { number } = await claimRow(id)
    const result = await amparo('claim', 'approve', number, '--method', 'indemnity', '--amount', '6499')
    expect(result.code, result.err.join('\n')).toBe(0)
    expect(result.out).toEqual([`Claim #${id} ${number} approved: Aprovado (approved).`])
  })

  it('refuses, with exit code 2 and one line, a wrong method or amount, an amount over the LMI, another status', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    expect(await refused('claim', 'approve', String(id), '--method', 'refund', '--amount', '10')).toMatch(
      /settlement method/,
    )
    expect(
      await refused('claim', 'approve', String(id), '--method', 'repair', '--amount', '6499.01'),
    ).toMatch(/LMI/)
    expect(await refused('claim', 'approve', String(id), '--method', 'repair', '--amount', '0')).toMatch(
      /greater than 0/,
    )
    expect(await refused('claim', 'approve', String(id), '--method', 'repair', '--amount', '12.345')).toMatch(
      /approved amount/,
    )
    expect((await claimRow(id)).status).toBe('under_review')
    const pending = await claimOf(
      main.db,
      { subscriptionId: await paidSubscription(app, p) },
      'documents_pending',
    )
    expect(
      await refused('claim', 'approve', String(pending), '--method', 'repair', '--amount', '10'),
    ).toMatch(/documents_pending.*only a claim under review can be approved/)
    expect(await refused('claim', 'approve', '999999', '--method', 'repair', '--amount', '10')).toMatch(
      /not found/i,
    )
    expect(await refused('claim', 'approve', String(id), '--amount', '10')).toMatch(/--method/)
  })
})

describe('two operators at once', () => {
  it('one decision wins, each command on its own connection; the other exits 2 with invalid state', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    const [approve, deny] = await Promise.all([
      amparo('claim', 'approve', String(id), '--method', 'replacement', '--amount', '3000'),
      amparo('claim', 'deny', String(id), '--reason', 'other', '--note', 'Negado.'),
    ])
    expect([approve.code, deny.code].sort(), [...approve.err, ...deny.err].join('\n')).toEqual([0, 2])
    const loser = approve.code === 2 ? approve : deny
    expect(loser.err).toHaveLength(1)
    expect(loser.err[0]).toMatch(/The claim (was decided meanwhile|is (approved|denied))/)
    const status = (await claimRow(id)).status
    expect(status).toBe(approve.code === 0 ? 'approved' : 'denied')
    const events = [
      ...(await eventsOf(main.db, 'claim.approved', id)),
      ...(await eventsOf(main.db, 'claim.denied', id)),
    ]
    expect(events.map((e) => e.type)).toEqual([`claim.${status}`])
  })
})

describe('amparo claim deny', () => {
  it('denies a claim awaiting documents with a reason and note; a second decision is refused', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) }, 'documents_pending')
    const claim = await json<Claim>(
      main.env,
      'claim',
      'deny',
      String(id),
      '--reason',
      'documents_invalid',
      '--note',
      ' A nota fiscal está ilegível. ',
    )
    expect(claim.status).toBe('denied')
    expect(claim.decision).toMatchObject({
      outcome: 'denied',
      reason_code: 'documents_invalid',
      note: 'A nota fiscal está ilegível.',
      settlement_method: null,
      payable_amount: null,
    })
    expect(await refused('claim', 'approve', String(id), '--method', 'repair', '--amount', '10')).toMatch(
      /denied/,
    )
    expect(await refused('claim', 'deny', String(id), '--reason', 'other', '--note', 'x')).toMatch(/denied/)
    expect(await eventsOf(main.db, 'claim.denied', id)).toHaveLength(1)
  })

  it('refuses an unknown reason or an empty note', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    expect(await refused('claim', 'deny', String(id), '--reason', 'changed_mind', '--note', 'x')).toMatch(
      /reason code/,
    )
    expect(await refused('claim', 'deny', String(id), '--reason', 'other', '--note', '  ')).toMatch(/note/)
    expect((await claimRow(id)).status).toBe('under_review')
  })
})

describe('amparo claim settle', () => {
  it('settles an indemnity: the subscription is canceled as claim_settled and its device free again', async () => {
    const serial = `SN${Date.now()}`
    const subscriptionId = await paidSubscription(app, p, serial)
    const id = await claimOf(main.db, { subscriptionId })
    await json(main.env, 'claim', 'approve', String(id), '--method', 'indemnity', '--amount', '6000')
    const claim = await json<Claim>(main.env, 'claim', 'settle', String(id), '--reference', 'PIX-E2E-0001')
    expect(claim.status).toBe('settled')
    expect(claim.settlement).toMatchObject({ reference: 'PIX-E2E-0001' })
    const response = await app.inject({
      method: 'GET',
      url: `/subscriptions/${subscriptionId}`,
      headers: bearer(p.token),
    })
    expect(response.json()).toMatchObject({ status: 'canceled', cancellation: { reason: 'claim_settled' } })
    expect(await eventsOf(main.db, 'claim.settled', id)).toHaveLength(1)
    expect(await eventsOf(main.db, 'subscription.canceled', subscriptionId)).toHaveLength(1)
    // The device may be protected again, by another partner too.
    await paidSubscription(app, other, serial)
    expect(await refused('claim', 'settle', String(id), '--reference', 'again')).toMatch(/settled/)
  })

  it('refuses a claim not approved and a reference over 100 characters', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    expect(await refused('claim', 'settle', String(id), '--reference', 'x')).toMatch(/only a claim approved/)
    await json(main.env, 'claim', 'approve', String(id), '--method', 'repair', '--amount', '100')
    expect(await refused('claim', 'settle', String(id), '--reference', 'x'.repeat(101))).toMatch(
      /100 characters/,
    )
    expect((await claimRow(id)).status).toBe('approved')
  })
})

describe('amparo claim request-documents', () => {
  it('asks for documents on a claim under review: it awaits them, audited, with the partner told', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    const message = 'Envie o orçamento do reparo e outra foto da tela.'
    const claim = await json<Claim & { required_documents: string[]; documents_request: unknown }>(
      main.env,
      'claim',
      'request-documents',
      String(id),
      '--kind',
      'repair_quote',
      'photo',
      '--message',
      message,
    )
    expect(claim).toMatchObject({
      status: 'documents_pending',
      documents_request: { kinds: ['repair_quote', 'photo'], message },
    })
    expect(claim.required_documents).toEqual(expect.arrayContaining(['repair_quote', 'photo']))
    expect(await eventsOf(main.db, 'claim.documents_requested', id)).toHaveLength(1)
    const audit = await main.db
      .selectFrom('audit_log')
      .select(['action', 'actor_label'])
      .where('record_id', '=', String(id))
      .execute()
    expect(audit).toEqual([
      { action: 'claim.request_documents', actor_label: expect.stringMatching(/^cli:/) },
    ])
    expect(
      await refused('claim', 'request-documents', String(id), '--kind', 'photo', '--message', message),
    ).toMatch(/only a claim under review/)
  })

  it('refuses an unknown kind and a short message, the claim unchanged', async () => {
    const id = await claimOf(main.db, { subscriptionId: await paidSubscription(app, p) })
    expect(
      await refused(
        'claim',
        'request-documents',
        String(id),
        '--kind',
        'passport',
        '--message',
        'Envie o passaporte.',
      ),
    ).toMatch(/kind/)
    expect(
      await refused('claim', 'request-documents', String(id), '--kind', 'photo', '--message', 'foto'),
    ).toMatch(/10 to 500/)
    expect((await claimRow(id)).status).toBe('under_review')
  })
})

describe('amparo claim list and show', () => {
  it('lists newest first, filtered by status and partner; shows the fraud signals to the operator', async () => {
    const first = await claimOf(main.db, { subscriptionId: await paidSubscription(app, other) })
    const second = await claimOf(
      main.db,
      { subscriptionId: await paidSubscription(app, other) },
      'documents_pending',
    )
    const all = await json<{ data: { id: number; status: string; partner: { id: number } }[] }>(
      main.env,
      'claim',
      'list',
      '--partner',
      String(other.partner.id),
    )
    expect(all.data.map((c) => c.id).slice(0, 2)).toEqual([second, first])
    expect(all.data.every((c) => c.partner.id === other.partner.id)).toBe(true)
    const pending = await json<{ data: { id: number; status: string }[] }>(
      main.env,
      'claim',
      'list',
      '--partner',
      String(other.partner.id),
      '--status',
      'documents_pending',
    )
    expect(pending.data.map((c) => c.id)).toEqual([second])
    expect(await refused('claim', 'list', '--status', 'open')).toMatch(/--status/)

    const { number } = await claimRow(first)
    const shown = await json<Claim>(main.env, 'claim', 'show', number)
    expect(shown).toMatchObject({
      id: first,
      number,
      partner_id: other.partner.id,
      fraud_signals: ['early_claim'],
    })
    const human = await amparo('claim', 'show', String(first))
    expect(human.code).toBe(0)
    expect(human.out.join('\n')).toMatch(/Fraud signals: early_claim/)
    expect(await refused('claim', 'show', 'SIN-1999-000001')).toMatch(/not found/i)
  })
})
