import { createHash, randomBytes } from 'node:crypto'
import type { Trx } from '../../db/database.js'
import { insertSignInLink, useSignInLink } from './sign-in-link.repository.js'

// The portal's single-use sign-in links (docs/decisions.md, Messages to the insured): 32 random
// bytes in the link, only their SHA-256 stored, valid 24 hours, used once.

/** How long a sign-in link lets its customer in. */
export const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000

/**
 * The portal screen a link opens. The token rides in the fragment: a browser never sends it to a
 * server (no access log, no proxy, no Referer holds it), and no personal datum rides with it.
 */
export const SIGN_IN_ROUTE = '/#/entrar/'

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

/**
 * Makes a sign-in link for the customer, stored (hashed) in the caller's transaction, and answers
 * its address: `{portalUrl}/#/entrar/<token>`. The portal's page sends the token back with a POST
 * (`POST /api/session/link`), so a mail scanner that opens the link does not use it.
 */
export async function createSignInLink(
  trx: Trx,
  customerId: number,
  { portalUrl, now }: { portalUrl: string; now: Date },
): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await insertSignInLink(trx, {
    customer_id: customerId,
    token_hash: hashOf(token),
    expires_at: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS).toISOString(),
    created_at: now.toISOString(),
  })
  return `${portalUrl.replace(/\/+$/, '')}${SIGN_IN_ROUTE}${token}`
}

/** Uses a link's token: its customer, once; null when unknown, used or expired. */
export async function consumeSignInLink(trx: Trx, token: string, now: Date): Promise<number | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null
  return (await useSignInLink(trx, hashOf(token), now.toISOString())) ?? null
}
