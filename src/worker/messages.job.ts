import { setTimeout as sleep } from 'node:timers/promises'
import type { MailSettings } from '../config-mail.js'
import { type MailTransport, smtpTransport } from '../modules/messages/mail-transport.js'
import { keepDue } from '../modules/messages/message.service.js'
import {
  type ClaimedMessage,
  claimMessages,
  dispatchEventMessages,
  type MessageOutcome,
  sendMessage,
  settleMessages,
} from '../modules/messages/message-delivery.service.js'
import { type JobDeps, jobEvents, silentLog } from './job.js'

/** How often the loop looks for messages: a sign-in code must arrive while the person waits. */
export const MESSAGE_POLL_MS = 500
/** Messages handed to the mail server at once by one worker. */
export const MESSAGE_LANES = 50
/** A worker's hold on a message: longer than an attempt lasts (Nodemailer's timeouts, 30 s). */
export const MESSAGE_LEASE_SECONDS = 60

export interface MessageDeps extends JobDeps {
  mail: MailSettings
  /** The mail server; made from `mail.smtpUrl` when absent (tests pass their own). */
  transport?: MailTransport
  lanes?: number
  leaseSeconds?: number
}

export interface MessageResult {
  queued: number
  sent: number
  retried: number
  failed: number
  kept: number
  /** Outcomes another worker's lease had taken over. */
  lost: number
}

const emptyResult = (): MessageResult => ({ queued: 0, sent: 0, retried: 0, failed: 0, kept: 0, lost: 0 })

/**
 * One round: the new events into messages, then what is due: kept without a mail server, else
 * leased and sent, `lanes` at once, their outcomes written together. Answers whether the lanes
 * were all filled (more may be due).
 */
async function round(
  deps: MessageDeps,
  transport: MailTransport | null,
  result: MessageResult,
): Promise<boolean> {
  const { db, clock, mail } = deps
  result.queued += await dispatchEventMessages(db, { now: clock.now(), portalUrl: mail.portalUrl })
  if (!transport) {
    result.kept += await keepDue(db, clock.now())
    return false
  }
  const lanes = deps.lanes ?? MESSAGE_LANES
  const claimed = await claimMessages(db, {
    now: clock.now(),
    limit: lanes,
    leaseSeconds: deps.leaseSeconds ?? MESSAGE_LEASE_SECONDS,
  })
  if (claimed.length === 0) return false
  const ctx = {
    db,
    transport,
    from: mail.from,
    timeZone: deps.timeZone,
    base: jobEvents(deps).base,
    now: () => clock.now(),
  }
  const attempts = await Promise.all(
    claimed.map(async (message: ClaimedMessage) => ({ message, result: await sendMessage(ctx, message) })),
  )
  const outcomes = await settleMessages(db, attempts, clock.now())
  for (const outcome of outcomes) result[countOf(outcome)] += 1
  return claimed.length === lanes
}

const countOf = (outcome: MessageOutcome): keyof MessageResult => (outcome === 'retry' ? 'retried' : outcome)

/** Everything due now, once (tests, `amparo worker --once`). */
export async function deliverMessagesOnce(deps: MessageDeps): Promise<MessageResult> {
  const owned = !deps.transport && deps.mail.smtpUrl ? smtpTransport(deps.mail.smtpUrl) : null
  const transport = deps.transport ?? owned
  const result = emptyResult()
  try {
    while (await round(deps, transport, result)) {}
    return result
  } finally {
    owned?.close()
  }
}

/** The message loop of `amparo worker` and of `amparo serve` on SQLite, until `signal` aborts. */
export async function runMessageLoop(
  deps: MessageDeps & { env: 'test' | 'production' },
  { signal, pollMs = MESSAGE_POLL_MS }: { signal: AbortSignal; pollMs?: number },
): Promise<void> {
  const log = deps.log ?? silentLog
  if (!deps.mail.smtpUrl && deps.env === 'production')
    log.warn(
      {},
      'no mail server (AMPARO_SMTP_URL unset): messages to the insured are kept, none is sent (README, Messages to the insured)',
    )
  const transport = deps.transport ?? (deps.mail.smtpUrl ? smtpTransport(deps.mail.smtpUrl) : null)
  try {
    while (!signal.aborted) {
      const result = emptyResult()
      let full = false
      try {
        full = await round(deps, transport, result)
        if (result.retried || result.failed) log.warn(result, 'messages refused by the mail server')
        else if (result.queued || result.sent) log.debug(result, 'messages')
      } catch (error) {
        log.error({ err: error }, 'message round failed')
      }
      if (!full) await sleep(pollMs, undefined, { signal }).catch(() => {})
    }
  } finally {
    if (!deps.transport) transport?.close()
  }
}
