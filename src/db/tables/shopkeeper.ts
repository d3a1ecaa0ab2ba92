import type { Generated, SqlBool } from 'kysely'

/** A partner's stores: its matrix (created with the partner) and the branches it registers. */
export interface ShopkeepersTable {
  id: Generated<number>
  partner_id: number
  matrix: SqlBool
  trading_name: string
  /** CNPJ; unique across the service. Null only for a matrix store of a partner without document. */
  registration_number: string | null
  phone: string | null
  website: string | null
  zip_code: string | null
  street: string | null
  number: string | null
  complement: string | null
  neighborhood: string | null
  city: string | null
  state: string | null
  responsible_name: string | null
  responsible_email: string | null
  responsible_phone: string | null
  responsible_registration_number: string | null
  responsible_role: string | null
  responsible_rg: string | null
  bank_name: string | null
  bank_agency: string | null
  bank_account: string | null
  bank_account_digit: string | null
  created_at: string
}
