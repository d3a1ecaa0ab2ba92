import { createHash, randomBytes } from 'node:crypto'
import type { Db, Trx } from '../../db/database.js'
import type { OperatorRole } from '../../db/tables/operator.js'
import { retryingTransaction } from '../../db/transaction.js'
import { AppError, UnauthenticatedError } from '../../shared/errors.js'
import { DEMO_EMAIL_DOMAIN } from '../auth/auth.service.js'
import { type AuditActor, recordAudit } from './audit.service.js'
import {
  completeSession,
  countTotpFailure,
  deleteSession,
  deleteSessionsEndedBefore,
  insertSession,
  type OperatorRow,
  operatorByEmail,
  operatorById,
  sessionWithOperator,
  takeTotpStep,
  touchSession,
  updateOperator,
} from './operator.repository.js'
import {
  MAX_TOTP_FAILURES,
  normalizeEmail,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionLive,
  TOUCH_EVERY_MS,
} from './operator.rules.js'
import { operatorListView } from './operator.service.js'
import { DUMMY_HASH, verifyPassword } from './password-hash.js'
import { enrolment, isSealed, newTotpSecret, openTotpSecret, sealTotpSecret, totpStep } from './totp.js'

/** The signed-in operator, as routes see it (`request.operator`) and the console shows it. */
export interface ConsoleOperator {
  id: number
  email: string
  role: OperatorRole
  /** A one-time password not yet replaced: the session opens nothing but its change. */
  password_change_required: boolean
  /** A second factor enrolled: changing the password asks its code. */
  totp_enrolled: boolean
}

export class InvalidCredentialsError extends AppError {
  constructor(message = 'Wrong e-mail or password.') {
    super('invalid_credentials', message)
  }
}

export type SignInAnswer =
  | { stage: 'totp' }
  | { stage: 'enroll'; otpauth_url: string; qr_svg: string }
  | { stage: 'done'; operator: ConsoleOperator }

/** The session id kept in the table: the cookie's token hashed, so the table opens no session. */
export const sessionIdOf = (token: string): string => createHash('sha256').update(token).digest('hex')

export const operatorView = (
  row: Pick<OperatorRow, 'id' | 'email' | 'role' | 'password_one_time' | 'totp_enrolled_at'>,
): ConsoleOperator => ({
  id: row.id,
  email: row.email,
  role: row.role,
  password_change_required: Boolean(row.password_one_time),
  totp_enrolled: row.totp_enrolled_at !== null,
})

/** Where a sign-in or sign-out comes from, for the audit log. */
export interface SessionOrigin {
  now: Date
  ip: string | null
}

/** Why a sign-in failed, as the audit log says it (the answer is one 401 whatever the reason). */
type SignInFailure = 'unknown_email' | 'wrong_password' | 'disabled' | 'wrong_code'

/**
 * Sign-ins, failed sign-ins and sign-outs in the audit log (docs/decisions.md, Operator console:
 * sign-in, roles and audit). A failed one names no actor: whoever typed the e-mail is unproven.
 */
async function auditSession(
  trx: Trx,
  action: 'session.sign_in' | 'session.sign_in_failed' | 'session.sign_out',
  who: { operator: { id: number; email: string } | undefined; email: string },
  after: Record<string, unknown> | null,
  { now, ip }: SessionOrigin,
): Promise<void> {
  const actor: AuditActor =
    action === 'session.sign_in_failed' || !who.operator ? { claimed: who.email } : who.operator
  await recordAudit(trx, {
    operator: actor,
    action,
    recordType: 'operator',
    recordId: who.operator ? String(who.operator.id) : '',
    before: null,
    after,
    ip,
    at: now.toISOString(),
  })
}

interface SignIn extends SessionOrigin {
  email: string
  password: string
  /** Enrol a second factor now, where it is optional. */
  enroll: boolean
  /** Production: an operator without TOTP enrols before the session opens. */
  totpRequired: boolean
  /** AMPARO_CONSOLE_SECRET_KEY: the seed is stored encrypted under it. */
  secretKey: string
  userAgent: string | null
}

/**
 * The password step of a sign-in (README, Operator console): a new session, complete at once
 * when no second factor is enrolled nor required, else awaiting the TOTP code (and, for an
 * operator enrolling, the new seed shown once). Unknown, disabled and wrong all answer alike, after
 * the same hashing work.
 */
export async function signIn(db: Db, input: SignIn): Promise<{ token: string; answer: SignInAnswer }> {
  const email = normalizeEmail(input.email)
  // The demo's operator, whose password is published, never signs in in production (README, Going live).
  const demo = input.totpRequired && email.endsWith(DEMO_EMAIL_DOMAIN)
  const operator = demo ? undefined : await operatorByEmail(db, email)
  const matches = await verifyPassword(input.password, operator?.password_hash ?? DUMMY_HASH)
  if (!operator || !matches || operator.disabled_at !== null) {
    const reason: SignInFailure = !operator ? 'unknown_email' : !matches ? 'wrong_password' : 'disabled'
    await retryingTransaction(db, (trx) =>
      auditSession(trx, 'session.sign_in_failed', { operator, email }, { reason }, input),
    )
    throw new InvalidCredentialsError()
  }

  const now = input.now.toISOString()
  const token = randomBytes(32).toString('base64url')
  // The new seed and its QR code are made before the transaction, which holds the database only.
  const enrolling =
    operator.totp_enrolled_at === null && (input.totpRequired || input.enroll) ? newTotpSecret() : null
  const answer: SignInAnswer =
    operator.totp_enrolled_at !== null
      ? { stage: 'totp' }
      : enrolling !== null
        ? await enrolmentAnswer(enrolling, operator.email)
        : { stage: 'done', operator: operatorView(operator) }
  await retryingTransaction(db, async (trx) => {
    await deleteSessionsEndedBefore(trx, new Date(input.now.getTime() - SESSION_IDLE_MS).toISOString(), now)
    if (enrolling !== null)
      await updateOperator(trx, operator.id, {
        totp_secret: sealTotpSecret(enrolling, operator.id, input.secretKey),
      })
    await insertSession(trx, {
      id: sessionIdOf(token),
      operator_id: operator.id,
      stage: answer.stage === 'done' ? 'done' : 'password',
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(input.now.getTime() + SESSION_ABSOLUTE_MS).toISOString(),
      ip: input.ip,
      user_agent: input.userAgent?.slice(0, 500) ?? null,
    })
    if (answer.stage === 'done')
      await auditSession(trx, 'session.sign_in', { operator, email }, { second_factor: 'none' }, input)
  })
  return { token, answer }
}

async function enrolmentAnswer(secret: string, email: string): Promise<SignInAnswer> {
  const { otpauthUrl, qrSvg } = await enrolment(secret, email)
  return { stage: 'enroll', otpauth_url: otpauthUrl, qr_svg: qrSvg }
}

/**
 * The second step: a TOTP code completes the session (and the enrolment it started). Each code is
 * good once; MAX_TOTP_FAILURES wrong codes end the session, so the password must be given again
 * (and the sign-in limits count it).
 */
export async function confirmTotp(
  db: Db,
  token: string,
  code: string,
  origin: SessionOrigin & { secretKey: string },
): Promise<ConsoleOperator> {
  const { now } = origin
  const id = sessionIdOf(token)
  const session = await sessionWithOperator(db, id)
  if (session?.stage !== 'password' || session.disabled_at !== null || !sessionLive(session, now))
    throw new UnauthenticatedError()
  const operator = await operatorById(db, session.operator_id)
  if (!operator?.totp_secret) throw new UnauthenticatedError()
  const secret = openTotpSecret(operator.totp_secret, operator.id, origin.secretKey)
  const step = totpStep(secret, operator.email, code.trim(), now)
  const who = { operator, email: operator.email }
  const accepted = await retryingTransaction(db, async (trx) => {
    if (step === null || !(await takeTotpStep(trx, operator.id, step))) return false
    // A seed stored before seeds were encrypted is sealed at its operator's next sign-in.
    if (!isSealed(operator.totp_secret ?? ''))
      await updateOperator(trx, operator.id, {
        totp_secret: sealTotpSecret(secret, operator.id, origin.secretKey),
      })
    if (operator.totp_enrolled_at === null) {
      const enrolled = await updateOperator(trx, operator.id, { totp_enrolled_at: now.toISOString() })
      await recordAudit(trx, {
        operator,
        action: 'operator.enroll_totp',
        recordType: 'operator',
        recordId: String(operator.id),
        before: operatorListView(operator),
        after: operatorListView(enrolled),
        ip: origin.ip,
        at: now.toISOString(),
      })
    }
    await completeSession(trx, id, now.toISOString())
    await auditSession(trx, 'session.sign_in', who, { second_factor: 'totp' }, origin)
    return true
  })
  if (accepted)
    return operatorView({ ...operator, totp_enrolled_at: operator.totp_enrolled_at ?? now.toISOString() })
  await retryingTransaction(db, async (trx) => {
    const reason: SignInFailure = 'wrong_code'
    await auditSession(trx, 'session.sign_in_failed', who, { reason }, origin)
    if ((await countTotpFailure(trx, id)) >= MAX_TOTP_FAILURES) await deleteSession(trx, id)
  })
  throw new InvalidCredentialsError('Wrong or already used code.')
}

/**
 * The operator of a live, complete session, or null (none, expired, disabled operator). An expired
 * session is deleted; a live one's last activity is written at most once a TOUCH_EVERY_MS.
 */
export async function sessionOperator(db: Db, token: string, now: Date): Promise<ConsoleOperator | null> {
  const id = sessionIdOf(token)
  const session = await sessionWithOperator(db, id)
  if (!session) return null
  if (!sessionLive(session, now) || session.disabled_at !== null) {
    await retryingTransaction(db, (trx) => deleteSession(trx, id))
    return null
  }
  if (session.stage !== 'done') return null
  if (now.getTime() - Date.parse(session.last_seen_at) >= TOUCH_EVERY_MS)
    await retryingTransaction(db, (trx) => touchSession(trx, id, now.toISOString()))
  return operatorView({ ...session, id: session.operator_id })
}

/**
 * The e-mail of a session's operator, at whatever stage (half-open included), or null: whose account
 * a wrong code or a wrong current password counts against (docs/decisions.md, sign-in limits).
 */
export async function sessionEmail(db: Db, token: string): Promise<string | null> {
  return (await sessionWithOperator(db, sessionIdOf(token)))?.email ?? null
}

/** Ends a session at once; a complete one's end is audited (a half-open one was never a sign-in). */
export async function signOut(db: Db, token: string, origin: SessionOrigin): Promise<void> {
  const id = sessionIdOf(token)
  await retryingTransaction(db, async (trx) => {
    const session = await sessionWithOperator(trx, id)
    if (!session) return
    await deleteSession(trx, id)
    if (session.stage !== 'done') return
    const operator = { id: session.operator_id, email: session.email }
    await auditSession(trx, 'session.sign_out', { operator, email: session.email }, null, origin)
  })
}
