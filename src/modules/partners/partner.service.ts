import { randomBytes } from 'node:crypto'
import type { Config } from '../../config.js'
import type { Reader, Trx } from '../../db/database.js'
import type { GatewayMode } from '../../db/tables/partner.js'
import { normalizeCnpj } from '../../shared/documents.js'
import { NotFoundError, ValidationError } from '../../shared/errors.js'
import { assertLoginAccepts, hashSecret } from '../auth/auth.service.js'
import {
  attributeAllModels,
  findCredentials,
  findNotifyInsured,
  findPartner,
  insertCredentials,
  insertMatrixStore,
  insertPartner,
  revokeCredentialsRow,
  storeDocumentTaken,
  updateGateway,
  updateNotifyInsured,
  upsertPartnerUser,
} from './partner.repository.js'

/** Lets the partner sell every model of the catalog (the CLI's catalog import, for every partner). */
export { attributeAllModels }

export interface NewPartner {
  name: string
  gateway: GatewayMode
  document?: string
  lmiMinFactorBp?: number
  lmiMaxFactorBp?: number
}

const DEFAULT_LMI_RANGE = { min: 5000, max: 10_000 }
const MAX_LMI_FACTOR_BP = 100_000

/** A partner, its matrix store, and every model of the catalog attributed to it. */
export async function createPartner(trx: Trx, input: NewPartner, now: string) {
  const name = input.name.trim()
  if (!name) throw ValidationError.field('name', 'The name field is required.')
  const document = input.document === undefined ? null : normalizeCnpj(input.document)
  if (input.document !== undefined && !document)
    throw ValidationError.field('document', 'The document must be a valid CNPJ.')
  const min = input.lmiMinFactorBp ?? DEFAULT_LMI_RANGE.min
  const max = input.lmiMaxFactorBp ?? DEFAULT_LMI_RANGE.max
  // Up to 10 × the model default: beyond it is a typo (and past 32 bits of basis points, a 500).
  if (min <= 0 || min > max || max > MAX_LMI_FACTOR_BP)
    throw ValidationError.field('lmi_factors', 'The LMI factors must satisfy 0 < min ≤ max ≤ 10.')
  // The matrix store carries the CNPJ, unique across stores: refuse cleanly rather than fail on the constraint.
  if (document && (await storeDocumentTaken(trx, document))) {
    throw ValidationError.field('document', 'The document has already been taken.')
  }

  const partner = await insertPartner(trx, {
    name,
    document,
    gateway: input.gateway,
    lmi_min_factor_bp: min,
    lmi_max_factor_bp: max,
    created_at: now,
  })
  await insertMatrixStore(trx, partner.id, name, document, now)
  await attributeAllModels(trx, partner.id)
  return partner
}

export async function setGateway(trx: Trx, partnerId: number, gateway: GatewayMode) {
  const updated = await updateGateway(trx, partnerId, gateway)
  if (!updated) throw new NotFoundError('Partner')
  return updated
}

/**
 * The operator's switch for a partner that writes to its customers itself (README, Messages to the
 * insured): off, Amparo e-mails them nothing but the portal's sign-in codes and links.
 */
export async function setNotifyInsured(trx: Trx, partnerId: number, on: boolean) {
  const before = await findNotifyInsured(trx, partnerId)
  const updated = await updateNotifyInsured(trx, partnerId, on)
  if (!before || !updated) throw new NotFoundError('Partner')
  return {
    id: updated.id,
    notify_insured: Boolean(updated.notify_insured),
    before: Boolean(before.notify_insured),
  }
}

export async function requirePartner(db: Reader, partnerId: number) {
  const partner = await findPartner(db, partnerId)
  if (!partner) throw new NotFoundError('Partner')
  return partner
}

/** New client credentials, hashed before the transaction that stores them (scrypt holds no lock). */
export interface NewCredentials {
  client_id: string
  client_secret: string
  secret_hash: string
}

export async function newCredentials(env: Config['env']): Promise<NewCredentials> {
  const client_id = `${env === 'production' ? 'live' : 'test'}_${randomBytes(12).toString('hex')}`
  const client_secret = randomBytes(32).toString('base64url')
  return { client_id, client_secret, secret_hash: await hashSecret(client_secret) }
}

/** Stores `credentials` for the partner; the secret exists in clear only in the return value. */
export async function issueCredentials(
  trx: Trx,
  partnerId: number,
  credentials: NewCredentials,
  now: string,
) {
  await requirePartner(trx, partnerId)
  const { client_id, client_secret, secret_hash } = credentials
  await insertCredentials(trx, { partner_id: partnerId, client_id, secret_hash, created_at: now })
  return { client_id, client_secret }
}

export async function revokeCredentials(trx: Trx, clientId: string, now: string) {
  const found = await findCredentials(trx, clientId)
  if (!found) throw new NotFoundError('Credential')
  if (found.revoked_at === null) {
    await revokeCredentialsRow(trx, found.id, now)
  }
  return { client_id: clientId, revoked: true as const }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** A partner user's login, checked and hashed before the transaction that stores it. */
export interface NewUser {
  email: string
  password_hash: string
}

/** An email and password the login accepts, the password hashed. */
export async function newUser(email: string, password: string): Promise<NewUser> {
  const normalized = email.trim().toLowerCase()
  if (!EMAIL.test(normalized))
    throw ValidationError.field('email', 'The email must be a valid email address.')
  if (password.length < 8 || password.trim() === '')
    throw ValidationError.field('password', 'The password must be at least 8 characters, not only spaces.')
  assertLoginAccepts(email, password)
  return { email: normalized, password_hash: await hashSecret(password) }
}

/**
 * A partner user for email/password login; an existing email of the same partner gets the new
 * password. An email of another partner's user is refused: taking it over would hand that login
 * to this partner's data (an operator's typo of a partner id).
 */
export async function upsertUser(trx: Trx, partnerId: number, user: NewUser, now: string) {
  await requirePartner(trx, partnerId)
  const { email, password_hash } = user
  const stored = await upsertPartnerUser(trx, {
    partner_id: partnerId,
    email,
    password_hash,
    disabled: false,
    created_at: now,
  })
  if (!stored) throw ValidationError.field('email', 'The email belongs to a user of another partner.')
  return stored
}
