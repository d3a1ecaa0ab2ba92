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

/** A customer's columns as a view that embeds it names them. */
export type CustomerView = { [K in keyof CustomerRow as `customer_${K & string}`]: CustomerRow[K] }

/** The customer's columns as the embedding view names them (the inverse of `customerFromView`). */
export function customerToView(row: CustomerRow): CustomerView {
  return {
    customer_id: row.id,
    customer_partner_id: row.partner_id,
    customer_name: row.name,
    customer_document: row.document,
    customer_document_kind: row.document_kind,
    customer_email: row.email,
    customer_phone: row.phone,
    customer_street: row.street,
    customer_number: row.number,
    customer_complement: row.complement,
    customer_zipcode: row.zipcode,
    customer_neighborhood: row.neighborhood,
    customer_city: row.city,
    customer_state: row.state,
    customer_created_at: row.created_at,
  }
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
