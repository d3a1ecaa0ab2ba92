import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { UnauthenticatedError, ValidationError } from '../../shared/errors.js'
import { deleteSessionsOf, operatorById, takeTotpStep, updateOperator } from './operator.repository.js'
import {
  type Acting,
  auditOperator,
  checkPassword,
  findOperator,
  type OperatorView,
  operatorListView,
} from './operator.service.js'
import { generatePassword, hashPassword, verifyPassword } from './password-hash.js'
import { InvalidCredentialsError, sessionIdOf } from './session.service.js'
import { openTotpSecret, totpStep } from './totp.js'

// An operator's password and second factor (README, Operator console): an admin's resets, each
// confirmed apart in the console, and the operator's own change, which a one-time password forces.

/**
 * A new one-time password, answered once, which the operator replaces at its next sign-in; its
 * sessions end. Its second factor stays: a lost phone is `resetSecondFactor`, confirmed apart.
 */
export async function resetPassword(
  db: Db,
  which: { id: number } | { email: string },
  acting: Acting,
): Promise<{ operator: OperatorView; password: string }> {
  const found = await findOperator(db, which)
  const password = generatePassword()
  const passwordHash = await hashPassword(password)
  const operator = await retryingTransaction(db, async (trx) => {
    const row = await updateOperator(trx, found.id, {
      password_hash: passwordHash,
      password_changed_at: acting.now.toISOString(),
      password_one_time: true,
    })
    await deleteSessionsOf(trx, found.id)
    const after = operatorListView(row)
    await auditOperator(
      trx,
      { action: 'operator.reset_password', id: found.id, before: operatorListView(found), after },
      acting,
    )
    return after
  })
  return { operator, password }
}

/**
 * Clears an operator's TOTP enrolment (a lost phone): its sessions end and it enrols again at its
 * next sign-in, with its password as it is.
 */
export async function resetSecondFactor(
  db: Db,
  which: { id: number } | { email: string },
  acting: Acting,
): Promise<OperatorView> {
  const found = await findOperator(db, which)
  return retryingTransaction(db, async (trx) => {
    const row = await updateOperator(trx, found.id, {
      totp_secret: null,
      totp_enrolled_at: null,
      totp_last_step: null,
    })
    await deleteSessionsOf(trx, found.id)
    const after = operatorListView(row)
    await auditOperator(
      trx,
      { action: 'operator.reset_totp', id: found.id, before: operatorListView(found), after },
      acting,
    )
    return after
  })
}

export interface PasswordChange {
  operatorId: number
  /** The session that asks: it stays open; the operator's other sessions end. */
  sessionToken: string
  currentPassword: string
  newPassword: string
  /** The authenticator's code, where a second factor is enrolled. */
  code?: string
  /** AMPARO_CONSOLE_SECRET_KEY, which the TOTP seed is sealed under. */
  secretKey: string
}

const WRONG = 'Wrong current password or code.'

/**
 * The signed-in operator's own new password: the current one and, with TOTP enrolled, a code
 * (docs/decisions.md). A one-time password's forced change asks no code: the sign-in's code opened
 * the session moments ago, and a code is good once. A wrong password or code is a 401 the sign-in
 * limits count; nothing is written.
 */
export async function changeOwnPassword(
  db: Db,
  change: PasswordChange,
  acting: Acting,
): Promise<OperatorView> {
  const operator = await operatorById(db, change.operatorId)
  if (!operator) throw new UnauthenticatedError()
  checkPassword(change.newPassword, 'new_password')
  const code = change.code?.replace(/\s/g, '') ?? ''
  const codeNeeded =
    operator.totp_secret !== null && operator.totp_enrolled_at !== null && !operator.password_one_time
  if (codeNeeded && code === '')
    throw ValidationError.field('code', 'The code of the authenticator is required.')
  const matches = await verifyPassword(change.currentPassword, operator.password_hash)
  const step =
    codeNeeded && operator.totp_secret !== null
      ? totpStep(
          openTotpSecret(operator.totp_secret, operator.id, change.secretKey),
          operator.email,
          code,
          acting.now,
        )
      : null
  if (!matches || (codeNeeded && step === null)) throw new InvalidCredentialsError(WRONG)
  if (await verifyPassword(change.newPassword, operator.password_hash))
    throw ValidationError.field('new_password', 'The new password must differ from the current one.')
  const passwordHash = await hashPassword(change.newPassword)
  return retryingTransaction(db, async (trx) => {
    if (step !== null && !(await takeTotpStep(trx, operator.id, step)))
      throw new InvalidCredentialsError(WRONG)
    const row = await updateOperator(trx, operator.id, {
      password_hash: passwordHash,
      password_changed_at: acting.now.toISOString(),
      password_one_time: false,
    })
    await deleteSessionsOf(trx, operator.id, sessionIdOf(change.sessionToken))
    const after = operatorListView(row)
    const before = operatorListView(operator)
    await auditOperator(trx, { action: 'operator.change_password', id: operator.id, before, after }, acting)
    return after
  })
}
