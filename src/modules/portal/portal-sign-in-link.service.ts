import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { AppError } from '../../shared/errors.js'
import { consumeSignInLink } from '../messages/sign-in-link.service.js'
import { documentOfCustomer } from './portal-session.repository.js'
import { openPortalSession } from './portal-session.service.js'

// Signing in by the single-use link a message carries (README, Portal do segurado): the page sends
// the token back with a POST, so opening the link (a mail scanner's GET) does not use it.

/** One answer for a link that is unknown, used or expired: it tells nothing of which. */
export class InvalidLinkError extends AppError {
  constructor() {
    super('invalid_credentials', 'This sign-in link is not valid any more: ask for a code by e-mail.')
  }
}

/** Uses the link (once, within 24 hours) and opens a session of its customer's document, audited. */
export async function signInWithLink(
  db: Db,
  input: { token: string; now: Date; ip: string | null },
): Promise<{ token: string; document: string }> {
  const token = randomBytes(32).toString('base64url')
  const document = await retryingTransaction(db, async (trx) => {
    const customerId = await consumeSignInLink(trx, input.token, input.now)
    const customer = customerId === null ? undefined : await documentOfCustomer(trx, customerId)
    if (customerId === null || !customer) throw new InvalidLinkError()
    await openPortalSession(trx, {
      document: customer.document,
      customerId,
      method: 'link',
      token,
      now: input.now,
      ip: input.ip,
    })
    return customer.document
  })
  return { token, document }
}
