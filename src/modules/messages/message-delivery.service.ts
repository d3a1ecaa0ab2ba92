import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { StateError } from '../../shared/errors.js'
import { annualPlanCertificate, subscriptionCertificate } from '../certificates/certificate.service.js'
import { sequenceEvents } from '../events/event.service.js'
import type { MailTransport, OutgoingMail, SendResult } from './mail-transport.js'
import { insertMessages, type NewMessageRow } from './message.repository.js'
import {
  certificateOf,
  type EventObject,
  eventMessageKey,
  type MessageKind,
  messageIdHeader,
  messageKindOf,
  nextAttemptAt,
  recipientOf,
} from './message.rules.js'
import {
  type ClaimedMessage,
  claimDueMessages,
  eventsAfter,
  lockDispatchCursor,
  moveDispatchCursor,
  recipientsOf,
  settleMessage,
  subscriptionsOf,
} from './message-delivery.repository.js'
import { eventContent } from './message-event-content.js'
import { createSignInLink } from './sign-in-link.service.js'

export type { ClaimedMessage }

const DISPATCH_WINDOW = 500
/** The event types that may make a message: the others are passed over without reading their data. */
const ANNOUNCED = new Set([
  'subscription.activated',
  'annual_plan.paid',
  'installment.payment_failed',
  'claim.opened',
  'claim.documents_requested',
  'claim.approved',
  'claim.denied',
  'claim.settled',
  'subscription.canceled',
  'annual_plan.canceled',
])

/**
 * Turns the events numbered since the last dispatch into messages, one per event and customer
 * (its `Message-ID` names both, so a second one is never queued), each with a sign-in link when
 * the portal has an address. A partner whose `notify_insured` is off gets none. Answers how many
 * were queued.
 */
export async function dispatchEventMessages(
  db: Db,
  { now, portalUrl }: { now: Date; portalUrl: string | null },
): Promise<number> {
  await sequenceEvents(db)
  let made = 0
  for (;;) {
    const { passed, queued } = await retryingTransaction(db, async (trx) => {
      const from = await lockDispatchCursor(trx)
      if (from === undefined) return { passed: 0, queued: 0 }
      const events = await eventsAfter(trx, from, DISPATCH_WINDOW)
      const last = events.at(-1)
      if (!last) return { passed: 0, queued: 0 }
      const announced = events
        .filter((event) => ANNOUNCED.has(event.type))
        .map((event) => {
          const object = JSON.parse(event.data) as EventObject
          return { event, object, to: recipientOf(event.type, object) }
        })
      const subscriptions = new Map(
        (
          await subscriptionsOf(
            trx,
            announced.flatMap(({ to }) => (to && 'subscriptionId' in to ? [to.subscriptionId] : [])),
          )
        ).map((row) => [row.id, row]),
      )
      const planned = announced.flatMap(({ event, object, to }) => {
        if (!to) return []
        const subscription = 'subscriptionId' in to ? subscriptions.get(to.subscriptionId) : undefined
        const customerId = 'customerId' in to ? to.customerId : subscription?.customer_id
        const kind = messageKindOf(event.type, object, subscription?.gateway ?? null)
        return kind && customerId !== undefined ? [{ event, object, kind, customerId }] : []
      })
      const recipients = new Map(
        (await recipientsOf(trx, [...new Set(planned.map((p) => p.customerId))])).map((r) => [
          r.customer_id,
          r,
        ]),
      )
      const rows: NewMessageRow[] = []
      const at = now.toISOString()
      for (const { event, object, kind, customerId } of planned) {
        const recipient = recipients.get(customerId)
        // The customer's partner must be the event's: an event never speaks for another partner.
        if (!recipient || recipient.partner_id !== event.partner_id || !recipient.notify_insured) continue
        const link = portalUrl ? await createSignInLink(trx, customerId, { portalUrl, now }) : null
        const content = eventContent(kind as Exclude<MessageKind, 'sign_in'>, object, {
          name: recipient.name,
          partnerName: recipient.partner_name,
          link,
        })
        const certificate = certificateOf(event.type, object)
        rows.push({
          partner_id: recipient.partner_id,
          customer_id: customerId,
          kind,
          event_public_id: event.public_id,
          message_id: eventMessageKey(event.public_id, customerId),
          to_address: recipient.email,
          subject: content.subject,
          text_body: content.text,
          html_body: content.html,
          attachment: certificate ? JSON.stringify(certificate) : null,
          state: 'pending',
          next_attempt_at: at,
          created_at: at,
        })
      }
      const queued = await insertMessages(trx, rows)
      await moveDispatchCursor(trx, last.position)
      return { passed: events.length, queued }
    })
    made += queued
    if (passed < DISPATCH_WINDOW) return made
  }
}

/** Leases up to `limit` due messages for `leaseSeconds` (longer than an attempt can last). */
export async function claimMessages(
  db: Db,
  { now, limit, leaseSeconds }: { now: Date; limit: number; leaseSeconds: number },
): Promise<ClaimedMessage[]> {
  const until = new Date(now.getTime() + leaseSeconds * 1000).toISOString()
  return retryingTransaction(db, (trx) => claimDueMessages(trx, { now: now.toISOString(), until, limit }))
}

export interface SendContext {
  db: Db
  transport: MailTransport
  from: string
  timeZone: string
  /** The base of the certificate's links (AMPARO_PUBLIC_URL). */
  base: string
  now: () => Date
}

/** The claimed message as the mail server receives it, its certificate rendered (outside any transaction). */
export async function outgoingMail(ctx: SendContext, message: ClaimedMessage): Promise<OutgoingMail> {
  const attachments: OutgoingMail['attachments'] = []
  if (message.attachment) {
    const pdf = await certificatePdf(ctx, message.partner_id, JSON.parse(message.attachment))
    if (pdf)
      attachments.push({ filename: 'certificado-amparo.pdf', content: pdf, contentType: 'application/pdf' })
  }
  return {
    messageId: messageIdHeader(message.message_id, ctx.from),
    from: ctx.from,
    to: message.to_address,
    subject: message.subject,
    text: message.text_body,
    html: message.html_body,
    attachments,
  }
}

/** The contract's certificate; null once it is no longer in force (canceled since). */
async function certificatePdf(
  ctx: SendContext,
  partnerId: number,
  { product, id }: { product: 'subscription' | 'annual_plan'; id: number },
): Promise<Buffer | null> {
  const context = { now: ctx.now().toISOString(), timeZone: ctx.timeZone, base: ctx.base }
  try {
    return product === 'subscription'
      ? await subscriptionCertificate(ctx.db, partnerId, id, context)
      : await annualPlanCertificate(ctx.db, partnerId, id, context)
  } catch (error) {
    if (error instanceof StateError) return null
    throw error
  }
}

/** Hands one claimed message to the mail server; its outcome is written by `settleMessages`. */
export async function sendMessage(ctx: SendContext, message: ClaimedMessage): Promise<SendResult> {
  let mail: OutgoingMail
  try {
    mail = await outgoingMail(ctx, message)
  } catch (error) {
    return { ok: false, error: `not composed: ${(error as Error).message}`.slice(0, 500) }
  }
  return ctx.transport.send(mail)
}

export type MessageOutcome = 'sent' | 'retry' | 'failed' | 'lost'

/**
 * Writes the outcomes of attempts that ended together, in one transaction, each with its attempt
 * record: sent; or tried again on the schedule (message.rules.ts) until 24 hours after it was
 * queued, then failed.
 */
export async function settleMessages(
  db: Db,
  attempts: { message: ClaimedMessage; result: SendResult }[],
  now: Date,
): Promise<MessageOutcome[]> {
  const at = now.toISOString()
  return retryingTransaction(db, async (trx) => {
    const outcomes: MessageOutcome[] = []
    for (const { message, result } of attempts) {
      const next = result.ok ? null : nextAttemptAt(message.attempts, new Date(message.created_at), now)
      const state = result.ok ? 'sent' : next ? 'pending' : 'failed'
      const written = await settleMessage(
        trx,
        message,
        {
          state,
          next_attempt_at: next?.toISOString() ?? null,
          last_error: result.ok ? null : result.error,
          sent_at: result.ok ? at : null,
        },
        {
          outcome: result.ok ? 'sent' : 'refused',
          response: result.ok ? result.response : result.error,
          attempted_at: at,
        },
      )
      outcomes.push(!written ? 'lost' : state === 'pending' ? 'retry' : state)
    }
    return outcomes
  })
}
