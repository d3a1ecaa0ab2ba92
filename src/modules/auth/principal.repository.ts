import type { Db } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { PartnerContext } from './partner-context.js'
import { passwordVersion } from './secret-hash.js'
import type { Subject } from './token.service.js'

/** The partner a token speaks for, and how far its sandbox clock is ahead of real time. */
export type Principal = PartnerContext & { clockOffsetSeconds: number }

const partnerColumns = [
  'partners.id as partnerId',
  'partners.gateway as gateway',
  'partners.lmi_min_factor_bp as lmiMinFactorBp',
  'partners.lmi_max_factor_bp as lmiMaxFactorBp',
  // The sandbox clock (CONTRACT §15) rides on this lookup: no query of its own per request.
  'partners.clock_offset_seconds as clockOffsetSeconds',
] as const

// Run on every authenticated request, so built and compiled once (see prepared()).
const activeClient = prepared((db: Db, credentialId: number) =>
  db
    .selectFrom('credentials')
    .innerJoin('partners', 'partners.id', 'credentials.partner_id')
    .select(partnerColumns)
    .where('credentials.id', '=', credentialId)
    .where('credentials.revoked_at', 'is', null),
)
const activeUser = prepared((db: Db, userId: number) =>
  db
    .selectFrom('partner_users')
    .innerJoin('partners', 'partners.id', 'partner_users.partner_id')
    .select([...partnerColumns, 'partner_users.password_hash as passwordHash'])
    .where('partner_users.id', '=', userId)
    .where('partner_users.disabled', '=', false),
)

/**
 * The partner behind a token's subject, or undefined when the credential was revoked, or the user
 * disabled or given a new password since the token: checked on every request, so each takes
 * effect at once.
 */
export async function findActivePrincipal(db: Db, subject: Subject): Promise<Principal | undefined> {
  if (subject.kind === 'client') return (await activeClient(db, subject.id))[0]
  const [row] = await activeUser(db, subject.id)
  if (!row || subject.passwordVersion !== passwordVersion(row.passwordHash)) return undefined
  const { passwordHash: _, ...partner } = row
  return partner
}

export async function findCredentialByClientId(db: Db, clientId: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'partner_id', 'secret_hash', 'revoked_at'])
    .where('client_id', '=', clientId)
    .executeTakeFirst()
}

export async function findUserByEmail(db: Db, email: string) {
  return db
    .selectFrom('partner_users')
    .select(['id', 'partner_id', 'password_hash', 'disabled'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst()
}
