import { formatTimestamp } from '../../shared/time.js'
import type { CustomerRow } from './customer.repository.js'

export interface AddressResource {
  street: string
  number: number
  complement: string | null
  zipcode: string
  neighborhood: string
  city: string
  state: string
}

export interface CustomerResource {
  id: number
  name: string
  document: string
  email: string
  phone: string
  address: AddressResource | null
  created_at: string
}

export function customerResource(row: CustomerRow, timeZone: string): CustomerResource {
  return {
    id: row.id,
    name: row.name,
    document: row.document,
    email: row.email,
    phone: row.phone,
    address: addressOf(row),
    created_at: formatTimestamp(row.created_at, timeZone),
  }
}

// The address columns are written all together or not at all; any gap means there is none.
function addressOf(row: CustomerRow): AddressResource | null {
  const { street, number, complement, zipcode, neighborhood, city, state } = row
  if (street === null || number === null || zipcode === null) return null
  if (neighborhood === null || city === null || state === null) return null
  return { street, number, complement, zipcode, neighborhood, city, state }
}
