import type { Db, Trx } from '../../db/database.js'
import { isUniqueViolation, violatedColumns } from '../../db/errors.js'
import { normalizeCep, normalizeDocument, normalizePhone, normalizeState } from '../../shared/documents.js'
import { type FieldErrors, NotFoundError, ValidationError } from '../../shared/errors.js'
import { type CustomerRow, findCustomerByDocument, insertCustomer } from './customer.repository.js'
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
 * Registers a customer of the partner. The route schema has already checked every format; this
 * stores the canonical forms, and the database's unique constraint, not a prior lookup, refuses a
 * duplicate document, so concurrent creations yield exactly one customer.
 */
export async function createCustomer(
  trx: Trx,
  partnerId: number,
  input: CustomerBody,
  now: string,
): Promise<CustomerRow> {
  const errors: FieldErrors = {}
  const document = normalizeDocument(input.document)
  const phone = normalizePhone(input.phone)
  const values = {
    partner_id: partnerId,
    name: requiredText(input.name, 'name', errors),
    document: document?.value ?? '',
    document_kind: document?.kind ?? 'cpf',
    email: input.email.trim(),
    phone: phone ?? '',
    ...addressColumns(input.address ?? null, errors),
    created_at: now,
  }
  // Unreachable through the route (its schema checks these formats), kept for other callers.
  if (!document) errors.document = ['The document field must be a valid CPF or CNPJ.']
  if (!phone) errors.phone = ['The phone field must be a phone number with area code.']
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)

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

function addressColumns(address: AddressInput | null, errors: FieldErrors) {
  if (!address) return NO_ADDRESS
  const zipcode = normalizeCep(address.zipcode)
  const state = normalizeState(address.state)
  if (!zipcode) errors['address.zipcode'] = ['The address.zipcode field must be exactly 8 digits.']
  if (!state) errors['address.state'] = ['The address.state field must be a Brazilian state code.']
  return {
    street: requiredText(address.street, 'address.street', errors),
    number: address.number,
    complement: address.complement?.trim() || null,
    zipcode: zipcode ?? '',
    neighborhood: requiredText(address.neighborhood, 'address.neighborhood', errors),
    city: requiredText(address.city, 'address.city', errors),
    state: state ?? '',
  }
}

// Laravel trims input, so a value of spaces only counts as missing.
function requiredText(value: string, key: string, errors: FieldErrors): string {
  const trimmed = value.trim()
  if (!trimmed) errors[key] = [`The ${key.replace(/_/g, ' ')} field is required.`]
  return trimmed
}
