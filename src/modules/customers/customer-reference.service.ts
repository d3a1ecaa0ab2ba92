import type { Reader } from '../../db/database.js'
import { normalizeDocument } from '../../shared/documents.js'
import type { FieldErrors } from '../../shared/errors.js'
import { type CustomerRow, findCustomer, findCustomerByDocument } from './customer.repository.js'

/** Null is "not sent", as for every optional contracting field. */
export interface CustomerReference {
  customer_id?: number | null
  customer_document?: string | null
}

/**
 * The contracting bodies name their customer by id or by document (the seed shows both); sent
 * together, they must agree. A missing, unknown or another partner's customer is an input error,
 * collected into `errors`.
 */
export async function resolveCustomer(
  db: Reader,
  partnerId: number,
  ref: CustomerReference,
  errors: FieldErrors,
): Promise<CustomerRow | undefined> {
  if (ref.customer_id != null) {
    const row = await findCustomer(db, partnerId, ref.customer_id)
    if (!row) errors.customer_id = ['The selected customer id is invalid.']
    // Both sent: they must name the same customer, or the contract would go to the id's silently.
    if (
      row &&
      ref.customer_document != null &&
      normalizeDocument(ref.customer_document)?.value !== row.document
    ) {
      errors.customer_document = ['The customer document does not match the selected customer id.']
    }
    return row
  }
  if (ref.customer_document != null) {
    const document = normalizeDocument(ref.customer_document)
    const row = document && (await findCustomerByDocument(db, partnerId, document.value))
    if (!row)
      errors.customer_document = [
        'No customer of this partner has this document: register it with POST /customers.',
      ]
    return row || undefined
  }
  errors.customer_id = ['The customer id field is required when customer document is not present.']
  return undefined
}
