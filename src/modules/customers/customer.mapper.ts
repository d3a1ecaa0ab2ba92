import { formatTimestamp } from '../../shared/time.js'
import type { CustomerRow } from './customer.repository.js'
import type { Customer } from './customer.schemas.js'

export function customerResource(row: CustomerRow, timeZone: string): Customer {
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
function addressOf(row: CustomerRow): Customer['address'] {
  const { street, number, complement, zipcode, neighborhood, city, state } = row
  if (street === null || number === null || zipcode === null) return null
  if (neighborhood === null || city === null || state === null) return null
  return { street, number, complement, zipcode, neighborhood, city, state }
}
