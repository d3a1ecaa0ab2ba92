import { type Json, next } from '../bodies.js'
import { imei } from '../documents.js'
import type { Party } from './security.js'

// Request bodies and values of the security suite; `security.ts` re-exports everything here, with
// the shared bodies of test/helpers.
export {
  annualCard,
  customerBody,
  type Json,
  next,
  shopkeeperBody,
  subscriptionCard,
  VISA,
  withField,
} from '../bodies.js'
export { cnpj, cpf, imei } from '../documents.js'

export type Method = 'GET' | 'POST' | 'PUT'

// 15:00 UTC is 12:00 in São Paulo; card expiries `1230` / `12/30` are in the future.
export const NOW = new Date('2026-11-21T15:00:00.000Z')
export const clock = { now: () => NOW }
export const ENV = { AMPARO_RATE_LIMIT: '1000000', AMPARO_LOGIN_RATE_LIMIT: '100000' }
/** What every sale of `p` names: the plan, the model and store, the most the customer accepts. */
const sale = (p: Party, planId: number) => ({
  plan_id: planId,
  model_id: p.modelId,
  store_id: p.storeId,
  maxima: 6000,
})
export const subscriptionBody = (p: Party): Json => ({
  ...sale(p, p.subscriptionPlanId),
  customer_id: p.customer.id,
  serial_number: imei(next()),
  metadata: { origin: 'pdv-01' },
})

export const annualBody = (p: Party): Json => ({
  ...sale(p, p.annualPlanId),
  customer_document: p.customer.document,
  imei: imei(next()),
  payment: { method: 'credit_card', installments: 3 },
})

export const RENDERED_NOW = '2026-11-21 12:00:00'
export const instant = (v: unknown) => (v === null ? null : new Date(v as string).toISOString())
export const FORGED_ID = 1_999_999_999

/** What an attacker adds to every body (mass assignment). */
export const forged = (otherPartner: number): Json => ({
  id: FORGED_ID,
  partner_id: otherPartner,
  status: 'pago',
  lmi: 0.01,
  premium: 0.01,
  valor: 0.01,
  franchise: 0.01,
  monthly_premium: 1,
  installments_count: 1,
  policy_number: 'AMP-2026-999999',
  paid_at: '2000-01-01 00:00:00',
  starts_at: '2000-01-02 00:00:00',
  ends_at: '2099-01-01 00:00:00',
  created_at: '2000-01-01 00:00:00',
  canceled_at: '2000-01-01 00:00:00',
  card_token: 'tok_forged',
  card_brand: 'forged',
  card_last4: '0000',
  matrix: true,
  refund_amount: 99_999,
  protocol: 'CAN-FORGEDFORG',
  confirmed_at: '2000-01-01 00:00:00',
  amount: 0.01,
  number: 7,
  installments: [{ amount: 0.01, status: 'paid' }],
})
export const strip = (body: Json, ...keys: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)))
