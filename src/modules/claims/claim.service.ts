import type { Db, Reader, Trx } from '../../db/database.js'
import { NotFoundError, StateError } from '../../shared/errors.js'
import { type EventType, recordEvent } from '../events/event.service.js'
import { type ClaimResource, claimResource } from './claim.mapper.js'
import {
  type ClaimFilter,
  type ClaimView,
  findClaimView,
  findClaimViewById,
  listClaimPage,
  listDocumentsOfClaim,
  transitionClaim,
} from './claim.repository.js'
import { canWithdraw, WITHDRAWABLE_STATUSES } from './claim.rules.js'

// Reading claims and writing their events: what every claim flow (opening, documents, decision,
// withdrawal) shares.

export type ClaimEventType = Extract<EventType, `claim.${string}`>

/** The partner's claim; 404 when it does not exist or is another partner's. */
export async function findClaimForPartner(db: Reader, partnerId: number, id: number): Promise<ClaimView> {
  const view = await findClaimView(db, partnerId, id)
  if (!view) throw new NotFoundError('Claim')
  return view
}

/** The claim's resource with its documents, as GET /claims/{id} shows it. */
export async function claimResourceOf(db: Reader, view: ClaimView, timeZone: string) {
  return claimResource(view, await listDocumentsOfClaim(db, view.id), timeZone)
}

/** GET /claims/{id}: the partner's claim as a resource; 404 when it is not theirs. */
export async function showClaim(db: Db, partnerId: number, id: number, timeZone: string) {
  return claimResourceOf(db, await findClaimForPartner(db, partnerId, id), timeZone)
}

/**
 * Writes a `claim.*` event of the claim as it now is, in the caller's transaction; answers the
 * resource it carries, which is the claim's answer too (rendered once).
 */
export async function recordClaimEvent(
  trx: Trx,
  type: ClaimEventType,
  id: number,
  now: string,
  timeZone: string,
): Promise<ClaimResource> {
  const view = await findClaimViewById(trx, id)
  if (!view) throw new Error(`claim ${id} not found for its event`)
  const object = await claimResourceOf(trx, view, timeZone)
  await recordEvent(trx, { partnerId: view.partner_id, type, object, now })
  return object
}

/** A page of the partner's claims matching `filter`, newest first, with their documents, and the total. */
export async function listClaims(
  db: Db,
  partnerId: number,
  filter: ClaimFilter,
  page: { offset: number; limit: number },
  timeZone: string,
) {
  const { rows, documents, total } = await listClaimPage(db, partnerId, filter, page)
  const data = rows.map((row) =>
    claimResource(
      row,
      documents.filter((d) => d.claim_id === row.id),
      timeZone,
    ),
  )
  return { data, total }
}

/**
 * POST /claims/{id}/withdraw: `withdrawn` from `documents_pending` or `under_review`, with
 * `claim.withdrawn`; any other status → 422 invalid_state. Guarded by the status, so a decision
 * committed meanwhile wins and this answers 422.
 */
export async function withdrawClaim(trx: Trx, partnerId: number, id: number, now: string, timeZone: string) {
  const view = await findClaimForPartner(trx, partnerId, id)
  if (
    !canWithdraw(view.status) ||
    !(await transitionClaim(trx, id, WITHDRAWABLE_STATUSES, 'withdrawn', { updated_at: now }))
  ) {
    const current = (await findClaimForPartner(trx, partnerId, id)).status
    throw new StateError(
      `The claim is ${current.replace('_', ' ')}: only a claim awaiting documents or under review can be withdrawn.`,
    )
  }
  return recordClaimEvent(trx, 'claim.withdrawn', id, now, timeZone)
}
