import type { Db, Reader, Trx } from '../../db/database.js'
import { isUniqueViolation, violatedColumns } from '../../db/errors.js'
import {
  normalizeCep,
  normalizeCnpj,
  normalizeCpf,
  normalized,
  normalizePhone,
  normalizeState,
} from '../../shared/documents.js'
import { type FieldErrors, NotFoundError, ValidationError } from '../../shared/errors.js'
import {
  findShopkeeper,
  findTakenColumns,
  insertShopkeeper,
  listShopkeepers,
  type NewShopkeeperRow,
  type ShopkeeperRow,
  UNIQUE_CONSTRAINTS,
  UNIQUE_FIELDS,
  type UniqueColumn,
} from './shopkeeper.repository.js'
import type { ShopkeeperBody } from './shopkeeper.schemas.js'

/** The partner's stores, matrix first: one page of them and their total. */
export function shopkeeperPage(db: Db, partnerId: number, offset: number, limit: number) {
  return listShopkeepers(db, partnerId, offset, limit)
}

/** One of the partner's stores; 404 when it is not theirs. */
export async function showShopkeeper(db: Db, partnerId: number, id: number): Promise<ShopkeeperRow> {
  const row = await findShopkeeper(db, partnerId, id)
  if (!row) throw new NotFoundError('Shopkeeper')
  return row
}

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
 * plain unique constraint is case-insensitive). Text arrives trimmed by validation, which refuses
 * a blank required field; a blank optional one is null.
 */
function toRow(partnerId: number, body: ShopkeeperBody, now: string): NewShopkeeperRow {
  const { address, responsible, bank } = body
  return {
    partner_id: partnerId,
    trading_name: body.trading_name,
    registration_number: normalized(normalizeCnpj(body.registration_number)),
    phone: normalized(normalizePhone(body.phone)),
    website: optional(body.website),
    zip_code: normalized(normalizeCep(address.zip_code)),
    street: address.street,
    number: address.number,
    complement: optional(address.complement),
    neighborhood: address.neighborhood,
    city: address.city,
    state: normalized(normalizeState(address.state)),
    responsible_name: responsible.name,
    responsible_email: responsible.email.toLowerCase(),
    responsible_phone: normalized(normalizePhone(responsible.phone)),
    responsible_registration_number: normalized(normalizeCpf(responsible.registration_number)),
    responsible_role: optional(responsible.role),
    responsible_rg: optional(responsible.rg),
    bank_name: bank.name,
    bank_agency: bank.agency,
    bank_account: bank.account,
    bank_account_digit: bank.account_digit,
    created_at: now,
  }
}

function optional(value: string | null | undefined): string | null {
  return value || null
}

/** A contract's `store_id`, when sent, must be one of the partner's stores (its 422 joins the others). */
export async function checkSellingStore(
  db: Reader,
  partnerId: number,
  storeId: number | null | undefined,
  errors: FieldErrors,
): Promise<void> {
  if (storeId != null && !(await findShopkeeper(db, partnerId, storeId))) {
    errors.store_id = ['The selected store id is invalid.']
  }
}
