import { formatTimestamp } from '../../shared/time.js'
import type { CustomerRow } from './customer.repository.js'
import type { Customer } from './customer.schemas.js'
import type { CustomerView } from './customer-view.repository.js'

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

/** The customer a view embeds (its `customer_` columns), as a customer row for `customerResource`. */
export function customerFromView(row: CustomerView): CustomerRow {
  return {
    id: row.customer_id,
    partner_id: row.customer_partner_id,
    name: row.customer_name,
    document: row.customer_document,
    document_kind: row.customer_document_kind,
    email: row.customer_email,
    phone: row.customer_phone,
    street: row.customer_street,
    number: row.customer_number,
    complement: row.customer_complement,
    zipcode: row.customer_zipcode,
    neighborhood: row.customer_neighborhood,
    city: row.customer_city,
    state: row.customer_state,
    created_at: row.customer_created_at,
  }
}
