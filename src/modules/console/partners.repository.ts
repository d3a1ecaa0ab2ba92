import type { Reader } from '../../db/database.js'

// The partners screen (README, Operator console: the operator API behind the screens): partners, their credentials (never a
// secret's hash), plans and webhook endpoints (never their secrets) with their deliveries' health.

export async function listPartnerRows(db: Reader) {
  return db
    .selectFrom('partners as p')
    .select((eb) => [
      'p.id',
      'p.name',
      'p.document',
      'p.gateway',
      'p.created_at',
      eb
        .selectFrom('credentials as c')
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('c.partner_id', '=', 'p.id')
        .where('c.revoked_at', 'is', null)
        .as('active_credentials'),
      eb
        .selectFrom('plans as pl')
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('pl.partner_id', '=', 'p.id')
        .where('pl.active', '=', true)
        .as('active_plans'),
      eb
        .selectFrom('webhook_endpoints as w')
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('w.partner_id', '=', 'p.id')
        .where('w.failing_since', 'is not', null)
        .as('failing_endpoints'),
    ])
    .orderBy('p.id')
    .execute()
}

export async function findPartnerRow(db: Reader, id: number) {
  return db
    .selectFrom('partners')
    .select([
      'id',
      'name',
      'document',
      'gateway',
      'notify_insured',
      'lmi_min_factor_bp',
      'lmi_max_factor_bp',
      'created_at',
    ])
    .where('id', '=', id)
    .executeTakeFirst()
}

/** What the partner screen shows of a credential (never its secret's hash). */
const CREDENTIAL_COLUMNS = ['id', 'client_id', 'created_at', 'revoked_at'] as const

export async function credentialsOf(db: Reader, partnerId: number) {
  return db
    .selectFrom('credentials')
    .select(CREDENTIAL_COLUMNS)
    .where('partner_id', '=', partnerId)
    .orderBy('id')
    .execute()
}

export async function findCredential(db: Reader, partnerId: number, id: number) {
  return db
    .selectFrom('credentials')
    .select(CREDENTIAL_COLUMNS)
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function findCredentialByClientId(db: Reader, clientId: string) {
  return db
    .selectFrom('credentials')
    .select(CREDENTIAL_COLUMNS)
    .where('client_id', '=', clientId)
    .executeTakeFirst()
}

export async function plansOf(db: Reader, partnerId: number) {
  return db
    .selectFrom('plans')
    .select([
      'id',
      'kind',
      'name',
      'installments',
      'monthly_rate_bp',
      'franchise_rate_bp',
      'annual_rate_bp',
      'coverage_types',
      'is_default',
      'active',
      'created_at',
    ])
    .where('partner_id', '=', partnerId)
    .orderBy('id')
    .execute()
}

export async function endpointsOf(db: Reader, partnerId: number) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'description', 'status', 'failing_since', 'created_at'])
    .where('partner_id', '=', partnerId)
    .orderBy('id')
    .execute()
}

/** Deliveries created since `since`, per endpoint and status. */
export async function deliveryCounts(db: Reader, endpointIds: number[], since: string) {
  if (endpointIds.length === 0) return []
  return db
    .selectFrom('webhook_deliveries')
    .select((eb) => ['endpoint_id', 'status', eb.fn.countAll<string>().as('count')])
    .where('endpoint_id', 'in', endpointIds)
    .where('created_at', '>=', since)
    .groupBy(['endpoint_id', 'status'])
    .execute()
}

/** Deliveries of these endpoints that failed, or are pending after a failed attempt: newest first. */
export async function failingDeliveries(db: Reader, endpointIds: number[], limit: number) {
  if (endpointIds.length === 0) return []
  return db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'endpoint_id',
      'event_public_id',
      'event_type',
      'status',
      'attempts',
      'last_status_code',
      'last_error',
      'next_attempt_at',
      'created_at',
    ])
    .where('endpoint_id', 'in', endpointIds)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'failed'),
        eb.and([
          eb('status', '=', 'pending'),
          eb.or([eb('last_error', 'is not', null), eb('last_status_code', 'is not', null)]),
        ]),
      ]),
    )
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}
