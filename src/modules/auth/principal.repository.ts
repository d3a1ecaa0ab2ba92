import type { Reader } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'

const partnerColumns = [
  'partners.id as partnerId',
  'partners.gateway as gateway',
  'partners.lmi_min_factor_bp as lmiMinFactorBp',
  'partners.lmi_max_factor_bp as lmiMaxFactorBp',
  // The sandbox clock (docs/decisions.md, Sandbox test clock) rides on this lookup: no query of its own per request.
  'partners.clock_offset_seconds as clockOffsetSeconds',
] as const

// Run on every authenticated request, so built and compiled once (see prepared()).
const activeClient = prepared((db: Reader, credentialId: number) =>
  db
    .selectFrom('credentials')
    .innerJoin('partners', 'partners.id', 'credentials.partner_id')
    .select(partnerColumns)
    .where('credentials.id', '=', credentialId)
    .where('credentials.revoked_at', 'is', null),
)
const activeUser = prepared((db: Reader, userId: number) =>
  db
    .selectFrom('partner_users')
    .innerJoin('partners', 'partners.id', 'partner_users.partner_id')
    .select([...partnerColumns, 'partner_users.password_hash as passwordHash'])
    .where('partner_users.id', '=', userId)
    .where('partner_users.disabled', '=', false),
)

/** The partner of a credential that is not revoked, with its sandbox clock offset. */
export async function findActiveClientPartner(db: Reader, credentialId: number) {
  return (await activeClient(db, credentialId))[0]
}

/** The partner of a user that is not disabled, with the user's password hash. */
export async function findActiveUserPartner(db: Reader, userId: number) {
  return (await activeUser(db, userId))[0]
}

export async function findCredentialByClientId(db: Reader, clientId: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'partner_id', 'secret_hash', 'revoked_at'])
    .where('client_id', '=', clientId)
    .executeTakeFirst()
}

export async function findUserByEmail(db: Reader, email: string) {
  return db
    .selectFrom('partner_users')
    .select(['id', 'partner_id', 'password_hash', 'disabled'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst()
}
