import { describe, expect, it } from 'vitest'
import { ADDRESS } from './helpers/bodies.js'
import {
  a,
  alnum,
  b,
  brandOf,
  CREATED_AT,
  catalog,
  contract,
  ctx,
  empresa,
  essencial,
  expect404,
  installmentsOf,
  JOAO,
  type Json,
  maria,
  minimal,
  modelOf,
  okJson,
  pro,
  quote,
  total,
  useSubscriptionsWorld,
} from './helpers/world/subscriptions.js'
import { COVERAGES } from './helpers/world.js'

// Contracting a subscription: the answer, its prices, and inputs that cannot take effect.
// Expected amounts are worked out by hand in cents: LMI (cents) × rate (bp) ÷ 10000, half-up.

useSubscriptionsWorld()

describe('subscriptions', () => {
  describe('POST /subscriptions', () => {
    it('answers 201 with the full union resource, priced as the quotation for the same inputs', async () => {
      const maxima = 6543.21
      const quoted = await quote(a.token, total, pro, maxima)
      const created = await contract(a.token, {
        plan_id: total,
        customer_id: maria.id,
        model_id: pro,
        serial_number: '490154203237518',
        second_serial_number: '356938035643809',
        is_used: false,
        store_id: a.matrix,
        maxima,
        metadata: { origin: 'pdv-loja-centro' },
      })
      expect(created).toEqual({
        id: expect.any(Number),
        status: 'pending',
        status_label: 'Pendente',
        card: null,
        plan: { id: total, name: 'Proteção Total 12x', coverages: COVERAGES },
        customer: maria,
        device: {
          ...modelOf('iPhone 16 Pro'),
          serial_number: '490154203237518',
          second_serial_number: '356938035643809',
          is_used: false,
        },
        model: modelOf('iPhone 16 Pro'),
        valor: quoted.monthly_premium,
        // 654321 × 1500 bp = 98148.15 → 98148
        franchise: 981.48,
        lmi: quoted.lmi,
        installments_count: quoted.installments,
        policy_number: null,
        certificate: null,
        store_id: a.matrix,
        metadata: { origin: 'pdv-loja-centro' },
        cancellation: null,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
      })
      // The quotation itself, by hand: 654321 × 120 bp = 7851.852 → 7852.
      expect(quoted).toMatchObject({ monthly_premium: 78.52, lmi: 6543.21, installments: 12 })
      expect(Object.keys(created)).toEqual([
        'id',
        'status',
        'status_label',
        'plan',
        'customer',
        'device',
        'model',
        'valor',
        'franchise',
        'lmi',
        'installments_count',
        'policy_number',
        'certificate',
        'store_id',
        'metadata',
        'card',
        'cancellation',
        'created_at',
        'updated_at',
      ])
      expect(Object.keys(created.device)).toEqual([
        'id',
        'name',
        'brand',
        'meta',
        'serial_number',
        'second_serial_number',
        'is_used',
      ])
      expect(created.customer.address).toEqual({ ...ADDRESS, zipcode: '01310100' })
      // What was stored is what is shown.
      expect(await okJson(a.token, `/subscriptions/${created.id}`)).toEqual(created)
    })

    it('answers exactly what GET then shows, whatever the inputs (the answer is not read back)', async () => {
      const bodies: Json[] = [
        minimal(),
        minimal({ customer_id: undefined, customer_document: JOAO, is_used: true, store_id: a.matrix }),
        minimal({ customer_id: empresa.id, plan_id: essencial, used: true, maxima: 4000 }),
        minimal({ customer_id: alnum.id, serial_number: '  ab1  ', second_serial_number: ' ', metadata: {} }),
        minimal({ serial_number: null, metadata: { origin: '  pdv-2  ' } }),
      ]
      for (const body of bodies) {
        const created = await contract(a.token, body)
        expect(await okJson(a.token, `/subscriptions/${created.id}`), JSON.stringify(body)).toEqual(created)
      }
    })

    it('prices at the default LMI without maxima, franchise included', async () => {
      const quoted = await quote(a.token, total, pro)
      const created = await contract(a.token, minimal())
      // 899900 × 120 bp = 10798.8 → 10799; 899900 × 1500 bp = 134985
      expect(quoted).toMatchObject({ monthly_premium: 107.99, lmi: 8999 })
      expect(created).toMatchObject({
        valor: quoted.monthly_premium,
        lmi: quoted.lmi,
        franchise: 1349.85,
        installments_count: 12,
        store_id: null,
        metadata: { origin: null },
        device: { serial_number: null, second_serial_number: null, is_used: false },
      })
    })

    it('prices another plan and model like its quotation', async () => {
      const s25 = catalog.model('Galaxy S25').id
      const quoted = await quote(a.token, essencial, s25, 4000)
      const created = await contract(a.token, minimal({ plan_id: essencial, model_id: s25, maxima: 4000 }))
      // Galaxy S25: 649900, range [324950, 649900]; 400000 × 100 bp = 4000; × 2000 bp = 80000
      expect(quoted).toMatchObject({ monthly_premium: 40, lmi: 4000, installments: 24 })
      expect(created).toMatchObject({
        plan: { id: essencial, name: 'Proteção Essencial 24x', coverages: COVERAGES.slice(0, 2) },
        device: { id: s25, name: 'Galaxy S25', brand: brandOf('Galaxy S25') },
        model: modelOf('Galaxy S25'),
        valor: quoted.monthly_premium,
        lmi: quoted.lmi,
        franchise: 800,
        installments_count: 24,
      })
    })

    it('rounds the franchise half-up to the cent', async () => {
      // 450030 × 1500 bp = 67504.5 → 67505 (half-even would give 67504); 450030 × 120 bp = 5400.36 → 5400
      const created = await contract(a.token, minimal({ maxima: 4500.3 }))
      expect(created).toMatchObject({ lmi: 4500.3, valor: 54, franchise: 675.05 })
      expect(await quote(a.token, total, pro, 4500.3)).toMatchObject({ monthly_premium: 54, lmi: 4500.3 })
    })

    it('never lets fields that are not inputs take effect', async () => {
      const created = await contract(
        a.token,
        minimal({
          status: 'pago',
          lmi: 1,
          valor: 1,
          franchise: 1,
          monthly_premium: 1,
          id: 999,
          partner_id: b.partner.id,
          installments_count: 99,
          created_at: '2000-01-01 00:00:00',
          card_token: 'tok_x',
          installments: [{ number: 1, amount: 1, status: 'paid' }],
        }),
      )
      expect(created).toMatchObject({
        status: 'pending',
        lmi: 8999,
        valor: 107.99,
        franchise: 1349.85,
        installments_count: 12,
        created_at: CREATED_AT,
      })
      expect(created.id).not.toBe(999)
      const row = await ctx.db
        .selectFrom('subscriptions')
        .select([
          'partner_id',
          'status',
          'lmi',
          'monthly_premium',
          'franchise',
          'installments_count',
          'card_token',
        ])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      expect(row).toEqual({
        partner_id: a.partner.id,
        status: 'pending',
        lmi: 899_900,
        monthly_premium: 10_799,
        franchise: 134_985,
        installments_count: 12,
        card_token: null,
      })
      expect(
        await ctx.db.selectFrom('subscriptions').select('id').where('id', '=', 999).executeTakeFirst(),
      ).toBe(undefined)
      const installments = await installmentsOf(a.token, created.id)
      expect(installments).toHaveLength(12)
      expect(installments.every((i) => i.status === 'pending' && i.amount === 107.99)).toBe(true)
      await expect404(b.token, `/subscriptions/${created.id}`)
    })
  })
})
