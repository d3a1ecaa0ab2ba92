import type { Db, Reader, Trx } from '../../db/database.js'
import { NotFoundError } from '../../shared/errors.js'
import { recordAudit } from '../operators/audit.service.js'
import {
  issueCredentials,
  type NewCredentials,
  revokeCredentials,
  setNotifyInsured,
} from '../partners/partner.service.js'
import type { Operator } from './claims-desk.service.js'
import {
  credentialsOf,
  deliveryCounts,
  endpointsOf,
  failingDeliveries,
  findCredential,
  findCredentialByClientId,
  findPartnerRow,
  listPartnerRows,
  plansOf,
} from './partners.repository.js'

// The partners screen (README, Operator console: the operator API behind the screens). Credentials are issued and revoked,
// and messages to the insured switched, through the partners module, as the CLI does, and audited.

const iso = (instant: string | null) => (instant === null ? null : new Date(instant).toISOString())
const DAY_MS = 86_400_000
/** The failing deliveries a partner's page lists, newest first. */
const FAILING_SHOWN = 20

export async function listPartners(db: Db) {
  const rows = await listPartnerRows(db)
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    document: row.document,
    gateway: row.gateway,
    active_credentials: Number(row.active_credentials ?? 0),
    active_plans: Number(row.active_plans ?? 0),
    failing_endpoints: Number(row.failing_endpoints ?? 0),
    created_at: iso(row.created_at) as string,
  }))
}

const credentialView = (c: {
  id: number
  client_id: string
  created_at: string
  revoked_at: string | null
}) => ({
  id: c.id,
  client_id: c.client_id,
  created_at: iso(c.created_at) as string,
  revoked_at: iso(c.revoked_at),
})

export async function partnerDetail(db: Reader, id: number, now: string) {
  const partner = await findPartnerRow(db, id)
  if (!partner) throw new NotFoundError('Partner')
  const [credentials, plans, endpoints] = await Promise.all([
    credentialsOf(db, id),
    plansOf(db, id),
    endpointsOf(db, id),
  ])
  const endpointIds = endpoints.map((e) => e.id)
  const since = new Date(Date.parse(now) - DAY_MS).toISOString()
  const [counts, failing] = await Promise.all([
    deliveryCounts(db, endpointIds, since),
    failingDeliveries(db, endpointIds, FAILING_SHOWN),
  ])
  const countOf = (endpointId: number, status: string) =>
    Number(counts.find((c) => c.endpoint_id === endpointId && c.status === status)?.count ?? 0)
  return {
    id: partner.id,
    name: partner.name,
    document: partner.document,
    gateway: partner.gateway,
    notify_insured: Boolean(partner.notify_insured),
    lmi_factors: { min_bp: partner.lmi_min_factor_bp, max_bp: partner.lmi_max_factor_bp },
    created_at: iso(partner.created_at) as string,
    credentials: credentials.map(credentialView),
    plans: plans.map((p) => ({
      id: p.id,
      kind: p.kind,
      name: p.name,
      installments: p.installments,
      monthly_rate_bp: p.monthly_rate_bp,
      franchise_rate_bp: p.franchise_rate_bp,
      annual_rate_bp: p.annual_rate_bp,
      coverage_types: JSON.parse(p.coverage_types) as string[],
      is_default: Boolean(p.is_default),
      active: Boolean(p.active),
      created_at: iso(p.created_at) as string,
    })),
    webhook_endpoints: endpoints.map((e) => ({
      id: e.id,
      url: e.url,
      events: JSON.parse(e.events) as string[],
      description: e.description,
      status: e.status,
      failing_since: iso(e.failing_since),
      deliveries_24h: {
        succeeded: countOf(e.id, 'succeeded'),
        failed: countOf(e.id, 'failed'),
        pending: countOf(e.id, 'pending'),
      },
      failing: failing
        .filter((d) => d.endpoint_id === e.id)
        .map((d) => ({
          id: d.id,
          event_id: d.event_public_id,
          event_type: d.event_type,
          status: d.status,
          attempts: d.attempts,
          last_status_code: d.last_status_code,
          last_error: d.last_error,
          next_attempt_at: iso(d.next_attempt_at),
          created_at: iso(d.created_at) as string,
        })),
    })),
  }
}

interface Who {
  operator: Operator
  ip: string | null
}

/** New credentials for the partner: the secret is in this answer only. Audited (without the secret). */
export async function issuePartnerCredential(
  trx: Trx,
  who: Who,
  partnerId: number,
  credentials: NewCredentials,
  now: string,
) {
  const issued = await issueCredentials(trx, partnerId, credentials, now)
  const stored = (await findCredentialByClientId(trx, issued.client_id)) as NonNullable<
    Awaited<ReturnType<typeof findCredentialByClientId>>
  >
  await recordAudit(trx, {
    ...who,
    action: 'credentials.issue',
    recordType: 'partner',
    recordId: String(partnerId),
    before: null,
    after: { credential_id: stored.id, client_id: issued.client_id },
    ip: who.ip,
    at: now,
  })
  return { ...credentialView(stored), client_secret: issued.client_secret }
}

/** Revokes one of the partner's credentials (again: nothing changes). Audited. */
export async function revokePartnerCredential(
  trx: Trx,
  who: Who,
  partnerId: number,
  credentialId: number,
  now: string,
) {
  const before = await findCredential(trx, partnerId, credentialId)
  if (!before) throw new NotFoundError('Credential')
  await revokeCredentials(trx, before.client_id, now)
  const after = (await findCredential(trx, partnerId, credentialId)) as typeof before
  await recordAudit(trx, {
    ...who,
    action: 'credentials.revoke',
    recordType: 'partner',
    recordId: String(partnerId),
    before: credentialView(before),
    after: credentialView(after),
    ip: who.ip,
    at: now,
  })
  return credentialView(after)
}

/**
 * Switches Amparo's e-mails to the partner's customers on or off (`amparo partner notify-insured`),
 * audited; answers the partner as its page shows it.
 */
export async function switchNotifyInsured(trx: Trx, who: Who, partnerId: number, on: boolean, now: string) {
  const { before, notify_insured } = await setNotifyInsured(trx, partnerId, on)
  await recordAudit(trx, {
    ...who,
    action: 'partner.notify_insured',
    recordType: 'partner',
    recordId: String(partnerId),
    before: { notify_insured: before },
    after: { notify_insured },
    ip: who.ip,
    at: now,
  })
  return partnerDetail(trx, partnerId, now)
}
