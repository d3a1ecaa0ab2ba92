import { cnpj, cpf, imei } from '../helpers/documents.js'
import type { Party } from './world.js'

// Request bodies and values of the security suite; `world.ts` re-exports everything here.

export type Json = Record<string, unknown>
export type Method = 'GET' | 'POST' | 'PUT'

// 15:00 UTC is 12:00 in São Paulo; card expiries `1230` / `12/30` are in the future.
export const NOW = new Date('2026-11-21T15:00:00.000Z')
export const clock = { now: () => NOW }
export const ENV = { AMPARO_RATE_LIMIT: '1000000', AMPARO_LOGIN_RATE_LIMIT: '100000' }
export const VISA = '4111111111111111'

let sequence = 0
/** A number no other fixture of this process used: documents, e-mails and IMEIs stay unique. */
export const next = () => {
  sequence += 1
  return sequence
}

export const customerBody = (n = next()): Json => ({
  name: `Cliente ${n}`,
  document: cpf(n),
  email: `cliente${n}@example.com`,
  phone: '11987654321',
  address: {
    street: 'Avenida Paulista',
    number: 1000,
    complement: 'Apto 12',
    zipcode: '01310-100',
    neighborhood: 'Bela Vista',
    city: 'São Paulo',
    state: 'SP',
  },
})

export const shopkeeperBody = (n = next()): Json => ({
  trading_name: `Loja ${n}`,
  registration_number: cnpj(n),
  phone: '1133334444',
  website: 'https://loja.example.com.br',
  address: {
    zip_code: '01310100',
    street: 'Avenida Paulista',
    number: '1000',
    complement: 'Loja 3',
    neighborhood: 'Bela Vista',
    city: 'São Paulo',
    state: 'SP',
  },
  responsible: {
    name: 'Maria da Silva',
    email: `responsavel${n}@loja.example.com`,
    phone: '11987654321',
    registration_number: cpf(500_000 + n),
    role: 'Gerente',
    rg: '12.345.678-9',
  },
  bank: { name: 'Banco Sigiloso', agency: '1234', account: '56789', account_digit: '0' },
})

export const subscriptionBody = (p: Party): Json => ({
  plan_id: p.subscriptionPlanId,
  customer_id: p.customer.id,
  model_id: p.modelId,
  store_id: p.storeId,
  serial_number: imei(next()),
  maxima: 6000,
  metadata: { origin: 'pdv-01' },
})

export const annualBody = (p: Party): Json => ({
  plan_id: p.annualPlanId,
  customer_document: p.customer.document,
  model_id: p.modelId,
  store_id: p.storeId,
  imei: imei(next()),
  maxima: 6000,
  payment: { method: 'credit_card', installments: 3 },
})

export const subscriptionCard = { creditCard: { number: VISA, expiry: '1230', cvv: '123', holder: 'MARIA' } }
export const annualCard = { card_number: VISA, card_holder: 'MARIA', card_expiry: '12/30', card_cvv: '123' }

/** A copy of `body` with the dot-path field set to `value` (or removed, with `undefined`). */
export function withField(body: Json, path: string, value: unknown): Json {
  const copy = structuredClone(body)
  const keys = path.split('.')
  const last = keys.pop() as string
  let target = copy
  for (const key of keys) target = target[key] as Json
  if (value === undefined) delete target[last]
  else target[last] = value
  return copy
}

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
