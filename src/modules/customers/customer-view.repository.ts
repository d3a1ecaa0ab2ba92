import { expressionBuilder } from 'kysely'
import type { Database } from '../../db/database.js'
import type { CustomerRow } from './customer.repository.js'

/**
 * A customer's columns selected next to the resource that embeds it (joined as `c`, prefixed
 * `customer_`; customer.mapper.ts `customerFromView` turns them back into a customer row).
 */
export const CUSTOMER_VIEW_COLUMNS = [
  'c.id as customer_id',
  'c.partner_id as customer_partner_id',
  'c.name as customer_name',
  'c.document as customer_document',
  'c.document_kind as customer_document_kind',
  'c.email as customer_email',
  'c.phone as customer_phone',
  'c.street as customer_street',
  'c.number as customer_number',
  'c.complement as customer_complement',
  'c.zipcode as customer_zipcode',
  'c.neighborhood as customer_neighborhood',
  'c.city as customer_city',
  'c.state as customer_state',
  'c.created_at as customer_created_at',
] as const

/** A customer's columns as a view that embeds it names them. */
export type CustomerView = { [K in keyof CustomerRow as `customer_${K & string}`]: CustomerRow[K] }

/** The customer's columns as the embedding view names them (the inverse of customer.mapper.ts `customerFromView`). */
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

/** The ids of the partner's customers with this normalised document: the lists' customer filter. */
export function customerIdsWithDocument(partnerId: number, document: string) {
  return expressionBuilder<Database, never>()
    .selectFrom('customers')
    .select('customers.id')
    .where('customers.partner_id', '=', partnerId)
    .where('customers.document', '=', document)
}
