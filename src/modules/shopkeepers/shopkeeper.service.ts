import type { Trx } from '../../db/database.js'
import { isUniqueViolation, violatedColumns } from '../../db/errors.js'
import {
  normalizeCep,
  normalizeCnpj,
  normalizeCpf,
  normalizePhone,
  normalizeState,
} from '../../shared/documents.js'
import { type FieldErrors, ValidationError } from '../../shared/errors.js'
import {
  findTakenColumns,
  insertShopkeeper,
  type NewShopkeeperRow,
  type ShopkeeperRow,
  UNIQUE_CONSTRAINTS,
  UNIQUE_FIELDS,
  type UniqueColumn,
} from './shopkeeper.repository.js'
import type { ShopkeeperBody } from './shopkeeper.schemas.js'

/**
 * Registers a branch of the partner. The body has passed the schema (formats and lengths); this
 * normalises it, refuses values already taken and inserts. The pre-check only makes the common
 * answer name every taken field at once: the unique constraints decide a race.
 */
export async function createShopkeeper(
  trx: Trx,
  partnerId: number,
  body: ShopkeeperBody,
  now: string,
): Promise<ShopkeeperRow> {
  const row = toRow(partnerId, body, now)
  const taken = await findTakenColumns(trx, row)
  if (taken.length > 0) throw takenError(taken)
  return saveShopkeeper(trx, row)
}

/** Inserts, turning a unique violation (a concurrent registration won) into the same 422. */
export async function saveShopkeeper(trx: Trx, row: NewShopkeeperRow): Promise<ShopkeeperRow> {
  try {
    return await insertShopkeeper(trx, row)
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    const columns = violatedColumns(error, UNIQUE_CONSTRAINTS).filter(isUniqueColumn)
    // Any other unique violation (the primary key) is the service's fault, not the caller's.
    if (columns.length === 0) throw error
    throw takenError(columns)
  }
}

function isUniqueColumn(column: string): column is UniqueColumn {
  return Object.hasOwn(UNIQUE_FIELDS, column)
}

function takenError(columns: UniqueColumn[]): ValidationError {
  const errors: FieldErrors = {}
  for (const column of columns) {
    const field = UNIQUE_FIELDS[column]
    errors[field] = [`The ${field.replace(/_/g, ' ')} has already been taken.`]
  }
  return new ValidationError(errors)
}

/**
 * Body → row: documents, phones and CEP bare, state uppercase, e-mail lowercase (so that the
 * plain unique constraint is case-insensitive), text trimmed. Like Laravel's TrimStrings, a
 * required field that is only blanks is missing, and an optional one is null.
 */
function toRow(partnerId: number, body: ShopkeeperBody, now: string): NewShopkeeperRow {
  const { address, responsible, bank } = body
  const blanks: FieldErrors = {}
  const required = (key: string, value: string) => {
    const trimmed = value.trim()
    if (!trimmed) blanks[key] = [`The ${key.replace(/_/g, ' ')} field is required.`]
    return trimmed
  }
  const row: NewShopkeeperRow = {
    partner_id: partnerId,
    trading_name: required('trading_name', body.trading_name),
    registration_number: normalized(normalizeCnpj(body.registration_number)),
    phone: normalized(normalizePhone(body.phone)),
    website: optional(body.website),
    zip_code: normalized(normalizeCep(address.zip_code)),
    street: required('address.street', address.street),
    number: required('address.number', address.number),
    complement: optional(address.complement),
    neighborhood: required('address.neighborhood', address.neighborhood),
    city: required('address.city', address.city),
    state: normalized(normalizeState(address.state)),
    responsible_name: required('responsible.name', responsible.name),
    responsible_email: responsible.email.toLowerCase(),
    responsible_phone: normalized(normalizePhone(responsible.phone)),
    responsible_registration_number: normalized(normalizeCpf(responsible.registration_number)),
    responsible_role: optional(responsible.role),
    responsible_rg: optional(responsible.rg),
    bank_name: required('bank.name', bank.name),
    bank_agency: required('bank.agency', bank.agency),
    bank_account: required('bank.account', bank.account),
    bank_account_digit: required('bank.account_digit', bank.account_digit),
    created_at: now,
  }
  if (Object.keys(blanks).length > 0) throw new ValidationError(blanks)
  return row
}

function optional(value: string | null | undefined): string | null {
  return value?.trim() || null
}

// The schema's formats already accepted these values, so a null here is a bug, not bad input.
function normalized(value: string | null): string {
  if (value === null) throw new Error('A value accepted by the schema failed to normalise')
  return value
}
