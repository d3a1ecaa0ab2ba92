import { describe, expect, it } from 'vitest'
import {
  approvedEarlier,
  call,
  ctx,
  daysAfter,
  expectRefusal,
  local,
  NOW,
  ok,
  openClaim,
  paidAnnualPlan,
  paidSubscription,
  pro,
  type Seller,
  seller,
  theft,
  useClaimsWorld,
} from './helpers/claims-world.js'

useClaimsWorld()

const storedSignals = async (id: number) => {
  const row = await ctx.db
    .selectFrom('claims')
    .select('fraud_signals')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return JSON.parse(row.fraud_signals) as string[]
}

describe('POST /claims', () => {
  it('opens a theft claim on a paid subscription: the resource, the number and claim.opened', async () => {
    const s = await seller()
    const id = await paidSubscription(s)
    const claim = await openClaim(s, theft(id))
    expect(claim).toEqual({
      id: expect.any(Number),
      number: expect.stringMatching(/^SIN-2026-\d{6}$/),
      status: 'documents_pending',
      status_label: 'Aguardando documentos',
      type: 'robbery',
      type_label: 'Roubo',
      subscription_id: id,
      annual_plan_id: null,
      customer: { id: s.customer.id, name: expect.any(String), document: s.customer.document },
      device: {
        model: { id: pro, name: 'iPhone 16 Pro' },
        serial_number: expect.stringMatching(/^SN-CLAIM-/),
      },
      occurred_at: '2026-11-20 12:00:00',
      description: 'Celular roubado na saída do metrô.',
      police_report: { number: 'BO-2026-0001', issued_on: '2026-11-20' },
      lmi: 8999,
      // 899900 × 15 % = 134985 cents.
      franchise: 1349.85,
      required_documents: ['police_report', 'imei_block', 'invoice'],
      documents: [],
      documents_request: null,
      decision: null,
      // Opened through the partner API (the insured's portal opens them `insured`).
      opened_by: 'partner',
      settlement: null,
      created_at: '2026-11-21 12:00:00',
      updated_at: '2026-11-21 12:00:00',
    })
    expect(await ok(s, 'GET', `/claims/${claim.id}`)).toEqual(claim)
    const events = await ok<{ data: { type: string; data: { object: Record<string, unknown> } }[] }>(
      s,
      'GET',
      '/events?type=claim.opened',
    )
    expect(events.data.map((e) => e.data.object)).toEqual([claim])
    expect(JSON.stringify(events)).not.toContain('fraud')
  })

  it('numbers claims one after the other across partners, unique when opened at once', async () => {
    // One at a time: paidSubscription moves the shared clock.
    const sellers = [await seller(), await seller(), await seller()]
    const contracts: number[] = []
    for (const s of sellers) contracts.push(await paidSubscription(s))
    const responses = await Promise.all(
      sellers.map((s, i) => call(s, 'POST', '/claims', theft(contracts[i] as number))),
    )
    const numbers = responses.map((r) => r.json().number as string)
    expect(
      responses.map((r) => r.statusCode),
      responses.map((r) => r.body).join(),
    ).toEqual([201, 201, 201])
    expect(new Set(numbers).size).toBe(3)
    const [low = 0, , high = 0] = numbers.map((n) => Number(n.slice(-6))).sort((a, b) => a - b)
    expect(high - low).toBe(2)
  })

  it('opens a damage claim on a protected annual plan with its franchise fixed at contracting', async () => {
    const s = await seller()
    const id = await paidAnnualPlan(s)
    const plan = await ok<{ franchise: number }>(s, 'GET', `/annual-plans/${id}`)
    expect(plan.franchise).toBe(899.9)
    const claim = await openClaim(s, {
      annual_plan_id: id,
      type: 'liquid_damage',
      occurred_at: local(daysAfter(-2)),
      description: 'Caiu na piscina durante a festa.',
    })
    expect(claim).toMatchObject({
      annual_plan_id: id,
      subscription_id: null,
      type_label: 'Danos por líquido',
      franchise: 899.9,
      police_report: null,
      required_documents: ['photo', 'invoice'],
    })
  })

  it('replays the answer for the same Idempotency-Key and opens one claim', async () => {
    const s = await seller()
    const id = await paidSubscription(s)
    const headers = { 'idempotency-key': `claim-${id}` }
    const first = await call(s, 'POST', '/claims', theft(id), headers)
    const again = await call(s, 'POST', '/claims', theft(id), headers)
    expect([first.statusCode, again.statusCode]).toEqual([201, 201])
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
  })

  describe('refuses under the field at fault', () => {
    let s: Seller
    let sub: number
    const refused = async (
      body: Record<string, unknown>,
      errors: Record<string, string[]>,
      code = 'validation_failed' as const,
    ) => {
      const response = await call(s, 'POST', '/claims', body)
      expectRefusal(response, code, { errors })
    }

    it('names exactly one contract of the partner', async () => {
      s = await seller()
      sub = await paidSubscription(s)
      const other = await seller()
      const foreign = await paidSubscription(other)
      const { subscription_id: _, ...none } = theft(sub)
      await refused(none, {
        subscription_id: ['The subscription id field is required when annual plan id is not present.'],
      })
      await refused(
        { ...theft(sub), annual_plan_id: 1 },
        { subscription_id: ['The subscription id field prohibits annual plan id from being present.'] },
      )
      await refused(theft(foreign), { subscription_id: ['The selected subscription id is invalid.'] })
      await refused(
        { ...none, annual_plan_id: 2_000_000 },
        { annual_plan_id: ['The selected annual plan id is invalid.'] },
      )
    })

    it('checks occurred_at: a real time, not future, within the notice period', async () => {
      await refused(theft(sub, { occurred_at: '2026-02-30 10:00:00' }), {
        occurred_at: [
          'The occurred at field must be a valid date and time in the format YYYY-MM-DD HH:MM:SS.',
        ],
      })
      await refused(theft(sub, { occurred_at: local(daysAfter(1)) }), {
        occurred_at: ['The occurred at must not be in the future.'],
      })
      const early = await seller()
      const old = await paidSubscription(early, { paidAt: daysAfter(-40) })
      const response = await call(
        early,
        'POST',
        '/claims',
        theft(old, { occurred_at: local(daysAfter(-31)) }),
      )
      expectRefusal(response, 'validation_failed', {
        errors: { occurred_at: ['The claim must be opened within 30 days of the loss.'] },
      })
    })

    it('refuses a loss when the contract was not in force', async () => {
      // Before installment 1 was paid.
      const paidAt = daysAfter(-5)
      const late = await paidSubscription(s, { paidAt })
      const notInForce = { occurred_at: ['The contract was not in force when the loss occurred.'] }
      await refused(theft(late, { occurred_at: local(daysAfter(-6)) }), notInForce)
      // Installment 2 (due 1 month after payment) unpaid for more than 10 days before the loss.
      const old = await paidSubscription(s, { paidAt: daysAfter(-50) })
      await refused(theft(old, { occurred_at: local(daysAfter(-2)) }), notInForce)
      // Up to 10 days after it was due, still in force.
      const grace = await paidSubscription(s, { paidAt: daysAfter(-38) })
      await openClaim(s, theft(grace, { occurred_at: local(daysAfter(-2)) }))
      // A pending subscription.
      const pending = await ok<{ id: number }>(
        s,
        'POST',
        '/subscriptions',
        { plan_id: s.plans.total, customer_id: s.customer.id, model_id: pro },
        201,
      )
      await refused(theft(pending.id), notInForce)
      // An annual plan before its cover starts (the day after payment).
      const annual = await paidAnnualPlan(s, daysAfter(-1))
      await refused(
        {
          annual_plan_id: annual,
          type: 'robbery',
          occurred_at: local(daysAfter(-1, new Date(NOW.getTime() + 3600_000))),
          description: 'Levaram o celular no ônibus.',
          police_report: { number: '1' },
        },
        notInForce,
      )
    })

    it('refuses a peril the plan does not cover, a theft without a police report, and a report from the future', async () => {
      const essencial = await paidSubscription(s, { plan: s.plans.essencial })
      await refused(
        { ...theft(essencial), type: 'liquid_damage' },
        { type: ['The selected type is not covered by the plan.'] },
      )
      const { police_report: _, ...bare } = theft(sub)
      const missing = {
        'police_report.number': [
          'The police report number field is required for robbery and qualified theft.',
        ],
      }
      await refused({ ...bare, type: 'qualified_theft' }, missing)
      await refused({ ...bare, police_report: { issued_on: '2026-11-20' } }, missing)
      await refused(
        { ...theft(sub), police_report: { number: 'BO-1', issued_on: '2031-01-01' } },
        { 'police_report.issued_on': ['The police report issued on must not be in the future.'] },
      )
      await refused({ ...theft(sub), type: 'fire' }, { type: expect.any(Array) as unknown as string[] })
      await refused(
        { ...theft(sub), description: 'curto' },
        { description: expect.any(Array) as unknown as string[] },
      )
    })

    it('refuses another open claim and the yearly limit with invalid_state', async () => {
      const open = await paidSubscription(s)
      const first = await openClaim(s, theft(open))
      const again = await call(s, 'POST', '/claims', theft(open))
      expectRefusal(again, 'invalid_state', {
        errors: {
          status: [
            'The contract has another claim open: withdraw it or wait for its decision and settlement.',
          ],
        },
      })
      // Two claims approved in the year (the plan's max_claims_per_year) refuse a third.
      await approvedEarlier(first.id, daysAfter(-1))
      const second = await openClaim(s, theft(open, { type: 'accidental_damage', police_report: null }))
      await approvedEarlier(second.id, daysAfter(-1))
      const third = await call(s, 'POST', '/claims', theft(open))
      expectRefusal(third, 'invalid_state', {
        errors: { status: ['The contract has reached its limit of 2 approved claims in 365 days.'] },
      })
    })
  })

  it('stores the fraud signals for operators, never in the partner API', async () => {
    const s = await seller()
    // Paid 5 days ago: early_claim.
    const sub = await paidSubscription(s)
    const first = await openClaim(s, theft(sub))
    expect(await storedSignals(first.id)).toEqual(['early_claim'])
    await ok(s, 'POST', `/claims/${first.id}/withdraw`)
    // Same device and the customer's third claim within 12 months.
    const second = await openClaim(s, theft(sub))
    expect(await storedSignals(second.id)).toEqual(['early_claim', 'repeat_device'])
    await ok(s, 'POST', `/claims/${second.id}/withdraw`)
    const annual = await paidAnnualPlan(s)
    const third = await openClaim(s, {
      annual_plan_id: annual,
      type: 'accidental_damage',
      occurred_at: local(daysAfter(-1)),
      description: 'Tela quebrada após queda.',
    })
    expect(await storedSignals(third.id)).toEqual(['repeat_customer'])
    expect(Object.keys(third)).not.toContain('fraud_signals')
  })
})
