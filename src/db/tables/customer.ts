import type { Generated } from 'kysely'

/** A partner's insured party; the same person under two partners is two customers. */
export interface CustomersTable {
  id: Generated<number>
  partner_id: number
  name: string
  /** CPF (11 digits) or CNPJ (14, digits or uppercase letters), bare. */
  document: string
  document_kind: 'cpf' | 'cnpj'
  email: string
  /** Bare digits with area code. */
  phone: string
  street: string | null
  number: number | null
  complement: string | null
  zipcode: string | null
  neighborhood: string | null
  city: string | null
  state: string | null
  created_at: string
}

/** Each word of a customer's name, plain (shared/text.ts `nameWords`): the console's search by name. */
export interface CustomerNameWordsTable {
  word: string
  customer_id: number
}
