import { createHash, randomBytes } from 'node:crypto'
import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { AppError, UnauthenticatedError } from '../../shared/errors.js'
import { recordAudit } from '../operators/audit.service.js'
import {
  codesSince,
  deleteCodesBefore,
  deletePortalSession,
  deletePortalSessionsEndedBefore,
  findPortalSession,
  insertCode,
  insertPortalSession,
  latestCode,
  latestCustomerWithDocument,
  nameOfDocument,
  takeCodeTry,
  touchPortalSession,
  useCode,
} from './portal-session.repository.js'
import {
  CODE_TTL_MS,
  CODE_WINDOW_MS,
  codeLimitReached,
  codeUsable,
  MAX_CODE_TRIES,
  maskEmail,
  PORTAL_ABSOLUTE_MS,
  PORTAL_IDLE_MS,
  PORTAL_TOUCH_EVERY_MS,
  portalSessionLive,
  retryAfterSeconds,
} from './portal-sign-in.rules.js'
import { codeMatches, hashCode, unknownDocumentMask } from './sign-in-code.js'

/** How a sign-in code reaches the insured: a message to the customer, written in the caller's transaction. */
export type SignInDelivery = (
  trx: Trx,
  message: { customerId: number; code: string; now: Date },
) => Promise<void>

/** The signed-in insured, as routes see it (`request.insured`). */
export interface PortalInsured {
  /** The CPF/CNPJ: every contract of it, under every partner, is theirs. */
  document: string
}

export class InvalidCodeError extends AppError {
  constructor() {
    super('invalid_credentials', 'Wrong or expired code: ask for a new one.')
  }
}

export class TooManyCodesError extends AppError {
  constructor(override readonly retryAfterSeconds: number) {
    super('rate_limited', 'Too many codes asked for this document: try again later.')
  }
}

export const portalSessionIdOf = (token: string): string => createHash('sha256').update(token).digest('hex')

interface CodeRequest {
  document: string
  now: Date
  /** The service's key: the masked address of an unknown document is derived under it. */
  maskKey: string
  newCode: () => string
  deliver: SignInDelivery
}

/**
 * Sends a sign-in code to the address on file (README, Portal do segurado), answering its masked
 * form. A document nobody holds answers alike (a stable made-up mask) after the same hashing work,
 * and counts against the same hourly limit (429). Past the address's limit nothing is sent, and the
 * answer is still the same.
 */
export async function requestSignInCode(db: Db, input: CodeRequest): Promise<{ masked_email: string }> {
  const { document, now } = input
  const customer = await latestCustomerWithDocument(db, document)
  const code = input.newCode()
  // Hashed before the transaction (it holds the database only). An unknown document's stored hash
  // is of no six-digit code, so nothing ever signs in with it.
  const codeHash = await hashCode(customer ? code : `unknown:${randomBytes(16).toString('hex')}`)
  const email = customer?.email.trim().toLowerCase() ?? ''
  const since = new Date(now.getTime() - CODE_WINDOW_MS).toISOString()
  const at = now.toISOString()
  await retryingTransaction(db, async (trx) => {
    await deleteCodesBefore(trx, new Date(now.getTime() - 2 * CODE_WINDOW_MS).toISOString())
    const byDocument = await codesSince(trx, 'document', document, since)
    if (codeLimitReached(byDocument.length))
      throw new TooManyCodesError(retryAfterSeconds(byDocument[0]?.created_at ?? at, now))
    if (customer && codeLimitReached((await codesSince(trx, 'email', email, since)).length)) return
    await insertCode(trx, {
      document,
      email,
      code_hash: codeHash,
      created_at: at,
      expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
      used_at: null,
    })
    if (customer) await input.deliver(trx, { customerId: customer.id, code, now })
  })
  return { masked_email: customer ? maskEmail(email) : unknownDocumentMask(document, input.maskKey) }
}

/**
 * Signs in with the document's latest code: 5 tries, 10 minutes, once. A new server-side session
 * (its token answered, for the cookie), audited as the insured's.
 */
export async function signInWithCode(
  db: Db,
  input: { document: string; code: string; now: Date; ip: string | null },
): Promise<{ token: string }> {
  const { document, now } = input
  const latest = await latestCode(db, document)
  if (!latest || !codeUsable(latest, now)) throw new InvalidCodeError()
  const counted = await retryingTransaction(db, (trx) => takeCodeTry(trx, latest.id, MAX_CODE_TRIES))
  if (!counted) throw new InvalidCodeError()
  if (!(await codeMatches(input.code, latest.code_hash))) throw new InvalidCodeError()
  const customer = await latestCustomerWithDocument(db, document)
  if (!customer) throw new InvalidCodeError()
  const token = randomBytes(32).toString('base64url')
  await retryingTransaction(db, async (trx) => {
    if (!(await useCode(trx, latest.id, now.toISOString()))) throw new InvalidCodeError()
    await openPortalSession(trx, {
      document,
      customerId: customer.id,
      method: 'code',
      token,
      now,
      ip: input.ip,
    })
  })
  return { token }
}

/**
 * A new server-side session of the document under `token` (its SHA-256 stored), ended ones swept,
 * audited as the customer's sign-in by `method`.
 */
export async function openPortalSession(
  trx: Trx,
  input: {
    document: string
    customerId: number
    method: 'code' | 'link'
    token: string
    now: Date
    ip: string | null
  },
): Promise<void> {
  const { now } = input
  const at = now.toISOString()
  await deletePortalSessionsEndedBefore(trx, new Date(now.getTime() - PORTAL_IDLE_MS).toISOString(), at)
  await insertPortalSession(trx, {
    id: portalSessionIdOf(input.token),
    document: input.document,
    created_at: at,
    last_seen_at: at,
    expires_at: new Date(now.getTime() + PORTAL_ABSOLUTE_MS).toISOString(),
    ip: input.ip,
  })
  await recordAudit(trx, {
    operator: { insured: input.customerId },
    action: 'portal.sign_in',
    recordType: 'portal_session',
    recordId: String(input.customerId),
    before: null,
    after: { method: input.method },
    ip: input.ip,
    at,
  })
}

/** The insured of a live session, or null; an ended one is deleted, a live one touched once a minute. */
export async function sessionInsured(db: Db, token: string, now: Date): Promise<PortalInsured | null> {
  const id = portalSessionIdOf(token)
  const session = await findPortalSession(db, id)
  if (!session) return null
  if (!portalSessionLive(session, now)) {
    await retryingTransaction(db, (trx) => deletePortalSession(trx, id))
    return null
  }
  if (now.getTime() - Date.parse(session.last_seen_at) >= PORTAL_TOUCH_EVERY_MS)
    await retryingTransaction(db, (trx) => touchPortalSession(trx, id, now.toISOString()))
  return { document: session.document }
}

export async function portalSignOut(db: Db, token: string): Promise<void> {
  await retryingTransaction(db, (trx) => deletePortalSession(trx, portalSessionIdOf(token)))
}

/** Who is signed in, as the page greets them. */
export async function insuredProfile(db: Db, insured: PortalInsured) {
  const row = await nameOfDocument(db, insured.document)
  if (!row) throw new UnauthenticatedError()
  return { name: row.name, document_kind: row.document_kind }
}
