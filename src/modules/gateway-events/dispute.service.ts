import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { recordEvent } from '../events/event.service.js'
import { partnerTime } from '../sandbox/sandbox-clock.service.js'
import { toDispute } from './dispute.mapper.js'
import {
  disputeViews,
  findDispute,
  findDisputedPayment,
  insertDispute,
  updateDispute,
} from './dispute.repository.js'
import { disputeStatusAfter, reasonOf } from './dispute.rules.js'
import type { EventAnswer, GatewayEventContext, StripeEventInput } from './gateway-event.context.js'
import { markEventApplied } from './gateway-event.repository.js'

// A chargeback Stripe reports (README, Going live: Stripe's events): kept on the ledger row of the
// charge it disputes, `disputed` while open, then won or lost; each change tells the partner with
// `payment.disputed`. A dispute about no charge of Amparo's is only kept as seen.

export type DisputeEventType = 'charge.dispute.created' | 'charge.dispute.closed'

/** The part of Stripe's Dispute object read here. */
interface StripeDispute {
  id?: unknown
  amount?: unknown
  reason?: unknown
  status?: unknown
  charge?: unknown
  payment_intent?: unknown
  evidence_details?: { due_by?: unknown } | null
}

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined)
const dueByOf = (dispute: StripeDispute) => {
  const dueBy = dispute.evidence_details?.due_by
  return typeof dueBy === 'number' && Number.isFinite(dueBy) ? new Date(dueBy * 1000).toISOString() : null
}

/** Applies `charge.dispute.created` / `.closed`, once per Stripe event id (see the module comment). */
export async function applyDisputeEvent(
  db: Db,
  event: StripeEventInput,
  type: DisputeEventType,
  context: GatewayEventContext,
): Promise<EventAnswer> {
  const dispute = event.data.object as StripeDispute
  const disputeId = text(dispute.id)
  const references = [text(dispute.payment_intent), text(dispute.charge)].filter((r) => r !== undefined)
  const payment = disputeId ? await findDisputedPayment(db, references) : undefined
  const at = payment
    ? (await partnerTime(db, payment.partner_id, context.clock, context.sandboxClocks)).toISOString()
    : context.clock.now().toISOString()
  return retryingTransaction(db, async (trx) => {
    if (!(await markEventApplied(trx, event.id, event.type, at))) return 'duplicate'
    if (!payment || !disputeId) return 'ignored'
    await recordDispute(trx, { disputeId, payment, dispute, type, at }, context)
    return 'applied'
  })
}

async function recordDispute(
  trx: Trx,
  {
    disputeId,
    payment,
    dispute,
    type,
    at,
  }: {
    disputeId: string
    payment: { id: number; partner_id: number }
    dispute: StripeDispute
    type: DisputeEventType
    at: string
  },
  context: Pick<GatewayEventContext, 'rendering'>,
): Promise<void> {
  const current = await findDispute(trx, disputeId)
  const status = disputeStatusAfter(current?.status, type, dispute.status)
  if (status === null) return
  const values = {
    status,
    amount: typeof dispute.amount === 'number' ? dispute.amount : (current?.amount ?? 0),
    reason: reasonOf(dispute.reason),
    evidence_due_by: dueByOf(dispute) ?? current?.evidence_due_by ?? null,
    updated_at: at,
  }
  if (current) await updateDispute(trx, current.id, values)
  else
    await insertDispute(trx, {
      ...values,
      gateway_dispute_id: disputeId,
      partner_id: payment.partner_id,
      payment_id: payment.id,
      created_at: at,
    })
  const view = await disputeViews(trx).where('d.gateway_dispute_id', '=', disputeId).executeTakeFirstOrThrow()
  await recordEvent(trx, {
    partnerId: payment.partner_id,
    type: 'payment.disputed',
    object: toDispute(view, context.rendering.timeZone),
    now: at,
  })
}

export { disputeRows } from './dispute.repository.js'
