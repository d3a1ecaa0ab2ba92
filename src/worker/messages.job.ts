import { setTimeout as sleep } from 'node:timers/promises'
import type { MailSettings } from '../config-mail.js'
import { keepDue } from '../modules/messages/message.service.js'
import { type JobDeps, silentLog } from './job.js'

/** How often the loop looks for messages to send: a sign-in code must arrive while the person waits. */
export const MESSAGE_POLL_MS = 500

export interface MessageDeps extends JobDeps {
  mail: MailSettings
}

export interface MessageResult {
  kept: number
}

/** One pass over what is due now: kept when no mail server is configured. */
export async function deliverMessagesOnce(deps: MessageDeps): Promise<MessageResult> {
  const { db, clock, mail } = deps
  if (mail.smtpUrl === null) return { kept: await keepDue(db, clock.now()) }
  return { kept: 0 }
}

/** The message loop of `amparo worker` and of `amparo serve` on SQLite, until `signal` aborts. */
export async function runMessageLoop(
  deps: MessageDeps,
  { signal, pollMs = MESSAGE_POLL_MS }: { signal: AbortSignal; pollMs?: number },
): Promise<void> {
  const log = deps.log ?? silentLog
  while (!signal.aborted) {
    try {
      await deliverMessagesOnce(deps)
    } catch (error) {
      log.error({ err: error }, 'message round failed')
    }
    await sleep(pollMs, undefined, { signal }).catch(() => {})
  }
}
