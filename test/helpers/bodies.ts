import type { Static, TSchema } from 'typebox'
import type { PageOf } from '../../src/shared/pagination.js'
import { cnpj, cpf, imei } from './documents.js'

// Response bodies.

/** A page of one of the API's lists, typed by the same schema that serialises it. */
export type PageBody<T> = Omit<Static<ReturnType<typeof PageOf<TSchema>>>, 'data'> & { data: T[] }

/** Any error's body: `errors` on 422, `decline_code` on a declined card (the client schema's). */
export type { AnyErrorBody as ErrorBody } from './api-types.js'

// ---------------------------------------------------------------------------------------------
// Request bodies. `next()` numbers them so that documents, e-mails and IMEIs stay unique.

export type Json = Record<string, unknown>

let sequence = 0
/** A number no other fixture of this process used. */
export const next = () => {
  sequence += 1
  return sequence
}

/**
 * An IMEI no other fixture of this process used: a device has one active protection across the
 * service (docs/decisions.md, Devices), so contracts that are not about that rule each name their own.
 */
export const uniqueImei = () => imei(1_000_000 + next())

/** The seed's example customer; `createCustomer(app, token)` registers her. */
export const MARIA: Json = {
  name: 'Maria da Silva',
  document: '529.982.247-25',
  email: 'maria@example.com',
  phone: '11987654321',
}

/** A customer's address. */
export const ADDRESS = {
  street: 'Avenida Paulista',
  number: 1000,
  complement: 'Apto 12',
  zipcode: '01310-100',
  neighborhood: 'Bela Vista',
  city: 'São Paulo',
  state: 'SP',
}

/** A new customer with an address, its document and e-mail unique. */
export const customerBody = (n = next()): Json => ({
  name: `Cliente ${n}`,
  document: cpf(n),
  email: `cliente${n}@example.com`,
  phone: '11987654321',
  address: ADDRESS,
})

/** Bank data a shopkeeper is created with and that no response may show. */
export const BANK = {
  name: 'Banco Sigiloso',
  agency: 'AG-SECRET-1',
  account: 'ACCT-SECRET-99',
  account_digit: 'DV-SECRET',
}

/** A new store with its responsible person; bare documents, as the seed's examples send them. */
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
  bank: { ...BANK },
})

export const VISA = '4111111111111111'
/** The card of a subscription's payment, and of an annual plan's. */
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
