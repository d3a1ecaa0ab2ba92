import type { Db, Trx } from '../../db/database.js'
import { NotFoundError } from '../../shared/errors.js'
import { type EventType, recordEvent } from '../events/event.service.js'
import { claimResource } from './claim.mapper.js'
import { type ClaimView, findClaimView, findClaimViewById, listDocumentsOf } from './claim.repository.js'

// Reading claims and writing their events: what every claim flow (opening, documents, decision,
// withdrawal) shares.

export type ClaimEventType = Extract<EventType, `claim.${string}`>

/** The partner's claim; 404 when it does not exist or is another partner's. */
export async function findClaimForPartner(db: Db, partnerId: number, id: number): Promise<ClaimView> {
  const view = await findClaimView(db, partnerId, id)
  if (!view) throw new NotFoundError('Claim')
  return view
}

/** The claim's resource with its documents, as GET /claims/{id} shows it. */
export async function claimResourceOf(db: Db, view: ClaimView, timeZone: string) {
  return claimResource(view, await listDocumentsOf(db, [view.id]), timeZone)
}

/** GET /claims/{id}: the partner's claim as a resource; 404 when it is not theirs. */
export async function showClaim(db: Db, partnerId: number, id: number, timeZone: string) {
  return claimResourceOf(db, await findClaimForPartner(db, partnerId, id), timeZone)
}

/** Writes a `claim.*` event of the claim as it now is, in the caller's transaction. */
export async function recordClaimEvent(
  trx: Trx,
  type: ClaimEventType,
  id: number,
  now: string,
  timeZone: string,
): Promise<void> {
  const view = await findClaimViewById(trx, id)
  if (!view) throw new Error(`claim ${id} not found for its event`)
  const object = await claimResourceOf(trx, view, timeZone)
  await recordEvent(trx, { partnerId: view.partner_id, type, object, now })
}
