import type { Db, Trx } from '../../db/database.js'
import { isUniqueViolation, violatedColumns } from '../../db/errors.js'
import {
  normalizeCep,
  normalizeDocument,
  normalized,
  normalizePhone,
  normalizeState,
} from '../../shared/documents.js'
import { NotFoundError, ValidationError } from '../../shared/errors.js'
import { type CustomerRow, findCustomerByDocument, insertCustomer } from './customer.repository.js'

export type { CustomerRow }

import type { AddressInput, CustomerBody } from './customer.schemas.js'

const DOCUMENT_TAKEN = 'The document has already been taken.'
const UNIQUE_COLUMNS = { customers_partner_document_unique: ['partner_id', 'document'] }
const NO_ADDRESS = {
  street: null,
  number: null,
  complement: null,
  zipcode: null,
  neighborhood: null,
  city: null,
  state: null,
}

/**
 * Registers a customer of the partner. The route schema has already checked every format and
 * trimmed the text (a blank required field never gets here); this stores the canonical forms, and the database's unique constraint, not a prior lookup, refuses a
 * duplicate document, so concurrent creations yield exactly one customer.
 */
export async function createCustomer(
  trx: Trx,
  partnerId: number,
  input: CustomerBody,
  now: string,
): Promise<CustomerRow> {
  const document = normalized(normalizeDocument(input.document))
  const values = {
    partner_id: partnerId,
    name: input.name,
    document: document.value,
    document_kind: document.kind,
    email: input.email,
    phone: normalized(normalizePhone(input.phone)),
    ...addressColumns(input.address ?? null),
    created_at: now,
  }
  try {
    return await insertCustomer(trx, values)
  } catch (error) {
    if (isUniqueViolation(error) && violatedColumns(error, UNIQUE_COLUMNS).includes('document')) {
      throw ValidationError.field('document', DOCUMENT_TAKEN)
    }
    throw error
  }
}

/** The partner's customer with this document, given formatted or bare; anything else is 404. */
export async function findCustomer(db: Db, partnerId: number, documentInput: string): Promise<CustomerRow> {
  const document = normalizeDocument(documentInput)
  const row = document && (await findCustomerByDocument(db, partnerId, document.value))
  if (!row) throw new NotFoundError('Customer')
  return row
}

function addressColumns(address: AddressInput | null) {
  if (!address) return NO_ADDRESS
  return {
    street: address.street,
    number: address.number,
    complement: address.complement || null,
    zipcode: normalized(normalizeCep(address.zipcode)),
    neighborhood: address.neighborhood,
    city: address.city,
    state: normalized(normalizeState(address.state)),
  }
}
