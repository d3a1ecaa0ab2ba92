import type { Db, Trx } from '../../db/database.js'
import { NotFoundError, ValidationError } from '../../shared/errors.js'
import type { ClaimBody } from '../claims/claim.schemas.js'
import { showClaim } from '../claims/claim.service.js'
import {
  addClaimDocument,
  checkDocumentLimits,
  type StoredDocument,
  type UploadMoment,
} from '../claims/claim-document.service.js'
import { openClaim } from '../claims/claim-opening.service.js'
import { recordAudit } from '../operators/audit.service.js'
import { claimOfDocument, claimsOfDocument } from './portal-contracts.repository.js'
import { type PortalMoment, partnerNow, requirePortalContract } from './portal-contracts.service.js'
import type { PortalInsured } from './portal-session.service.js'

// Abrir sinistro and Meus sinistros (README, Portal do segurado): the claims flows of the partner
// API, on the insured's own contracts, each change audited as the insured's.

/** Who acts, from where: the insured's session and the request's address. */
export interface InsuredOrigin {
  insured: PortalInsured
  ip: string | null
}

/**
 * The insured's contract named by the body (404 when it is not theirs: another document's contract
 * is not told apart from none), with its partner, its customer and its partner's now.
 */
export async function claimContractOf(db: Db, origin: InsuredOrigin, body: ClaimBody, moment: PortalMoment) {
  const subscriptionId = body.subscription_id ?? null
  const annualPlanId = body.annual_plan_id ?? null
  if ((subscriptionId === null) === (annualPlanId === null))
    throw ValidationError.field('subscription_id', 'Choose exactly one contract.')
  const contract =
    subscriptionId !== null
      ? await requirePortalContract(db, origin.insured, 'subscription', subscriptionId)
      : await requirePortalContract(db, origin.insured, 'annual_plan', annualPlanId as number)
  return { ...contract, now: partnerNow(moment.now, contract.clock_offset_seconds, moment.sandboxClocks) }
}

/** Opens the claim as `POST /claims` does, `opened_by: insured`, in the caller's transaction. */
export async function openInsuredClaim(
  trx: Trx,
  origin: InsuredOrigin,
  contract: { partner_id: number; customer_id: number; now: string },
  body: ClaimBody,
  timeZone: string,
) {
  const claim = await openClaim(trx, contract.partner_id, body, contract.now, timeZone, 'insured')
  await recordAudit(trx, {
    operator: { insured: contract.customer_id },
    action: 'portal.claim_open',
    recordType: 'claim',
    recordId: String(claim.id),
    before: null,
    after: { number: claim.number, type: claim.type, status: claim.status },
    ip: origin.ip,
    at: contract.now,
  })
  return claim
}

/** Meus sinistros: every claim on the insured's contracts, newest first, with its partner's name. */
export async function listInsuredClaims(db: Db, insured: PortalInsured, timeZone: string) {
  const rows = await claimsOfDocument(db, insured.document)
  const data = []
  for (const row of rows)
    data.push({
      ...(await showClaim(db, row.partner_id, row.id, timeZone)),
      partner: { name: row.partner_name },
    })
  return { data }
}

/** One of the insured's claims (404 when it is not on their contracts). */
export async function requireInsuredClaim(db: Db, insured: PortalInsured, id: number) {
  const row = await claimOfDocument(db, insured.document, id)
  if (!row) throw new NotFoundError('Claim')
  return row
}

export async function showInsuredClaim(db: Db, insured: PortalInsured, id: number, timeZone: string) {
  const row = await requireInsuredClaim(db, insured, id)
  return { ...(await showClaim(db, row.partner_id, id, timeZone)), partner: { name: row.partner_name } }
}

/** The upload's moment at the claim's partner's clock, and the limits of the partner API. */
export function uploadMoment(
  claim: { clock_offset_seconds: number },
  moment: PortalMoment,
  limits: UploadMoment['limits'],
): UploadMoment {
  return {
    now: partnerNow(moment.now, claim.clock_offset_seconds, moment.sandboxClocks),
    timeZone: moment.timeZone,
    limits,
  }
}

export async function checkInsuredDocumentLimits(
  db: Db,
  claim: { id: number; partner_id: number },
  size: number,
  moment: UploadMoment,
) {
  await checkDocumentLimits(db, claim.partner_id, claim.id, size, moment)
}

/** Adds the document as `POST /claims/{id}/documents` does, audited as the insured's. */
export async function addInsuredDocument(
  trx: Trx,
  origin: InsuredOrigin,
  claim: { id: number; partner_id: number; customer_id: number },
  document: StoredDocument,
  moment: UploadMoment,
) {
  const added = await addClaimDocument(trx, claim.partner_id, claim.id, document, moment)
  await recordAudit(trx, {
    operator: { insured: claim.customer_id },
    action: 'portal.claim_document',
    recordType: 'claim',
    recordId: String(claim.id),
    before: null,
    after: { document_id: added.id, kind: added.kind, size: added.size },
    ip: origin.ip,
    at: moment.now,
  })
  return added
}
