import { formatTimestamp } from '../../shared/time.js'
import type { ShopkeeperRow } from './shopkeeper.repository.js'

// Bank columns are deliberately never read here: no response can carry them.

const link = (row: ShopkeeperRow, base: string) => ({ link: `${base}/shopkeepers/${row.id}` })

/** The creation answer, as the seed shows it: `responsible` is null there. */
export function createdShopkeeperResource(row: ShopkeeperRow, base: string) {
  return {
    id: row.id,
    trading_name: row.trading_name,
    registration_number: row.registration_number ?? '',
    matrix: false as const,
    responsible: null,
    meta: link(row, base),
  }
}

export function shopkeeperResource(row: ShopkeeperRow, base: string, timeZone: string) {
  // SQLite returns booleans as 0/1.
  const matrix = Boolean(row.matrix)
  return {
    id: row.id,
    trading_name: row.trading_name,
    registration_number: row.registration_number,
    matrix,
    phone: row.phone,
    website: row.website,
    address: addressOf(row),
    responsible: responsibleOf(row),
    created_at: formatTimestamp(row.created_at, timeZone),
    meta: link(row, base),
  }
}

// A matrix store is created with the partner and carries neither address nor responsible.
function addressOf(row: ShopkeeperRow) {
  const { zip_code, street, number, neighborhood, city, state } = row
  if (zip_code === null || street === null || number === null) return null
  if (neighborhood === null || city === null || state === null) return null
  return { zip_code, street, number, complement: row.complement, neighborhood, city, state }
}

function responsibleOf(row: ShopkeeperRow) {
  const { responsible_name: name, responsible_email: email, responsible_phone: phone } = row
  const registration_number = row.responsible_registration_number
  if (name === null || email === null || phone === null || registration_number === null) return null
  return { name, email, phone, registration_number, role: row.responsible_role, rg: row.responsible_rg }
}
