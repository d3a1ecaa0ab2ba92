import type { Db } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { GatewayMode } from '../partners/partner.table.js'
import type { Subject } from './token.service.js'

/** What every authenticated request knows about its partner. */
export interface PartnerContext {
  partnerId: number
  gateway: GatewayMode
  lmiMinFactorBp: number
  lmiMaxFactorBp: number
}

const partnerColumns = [
  'partners.id as partnerId',
  'partners.gateway as gateway',
  'partners.lmi_min_factor_bp as lmiMinFactorBp',
  'partners.lmi_max_factor_bp as lmiMaxFactorBp',
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
    .select(partnerColumns)
    .where('partner_users.id', '=', userId)
    .where('partner_users.disabled', '=', false),
)

/**
 * The partner behind a token's subject, or undefined when the credential was revoked or the
 * user disabled: checked on every request, so revocation takes effect at once.
 */
export async function findActivePrincipal(db: Db, subject: Subject): Promise<PartnerContext | undefined> {
  const [row] = await (subject.kind === 'client' ? activeClient : activeUser)(db, subject.id)
  return row
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
