import type { Db, Trx } from '../../db/database.js'
import type { OperatorRole } from '../../db/tables/operator.js'
import { retryingTransaction } from '../../db/transaction.js'
import { NotFoundError, StateError, ValidationError } from '../../shared/errors.js'
import { type AuditActor, recordAudit } from './audit.service.js'
import {
  allOperators,
  deleteSessionsOf,
  insertOperator,
  type OperatorRow,
  operatorByEmail,
  operatorById,
  updateOperator,
} from './operator.repository.js'
import { isOperatorRole, normalizeEmail } from './operator.rules.js'
import { generatePassword, hashPassword } from './password-hash.js'

/** An operator as the console lists it: never its password hash nor its TOTP seed. */
export interface OperatorView {
  id: number
  email: string
  role: OperatorRole
  totp_enrolled: boolean
  disabled_at: string | null
  created_at: string
  password_changed_at: string
  /** A one-time password not yet replaced (README, Operator console). */
  password_change_required: boolean
}

export function operatorListView(row: OperatorRow): OperatorView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    totp_enrolled: row.totp_enrolled_at !== null,
    disabled_at: row.disabled_at,
    created_at: row.created_at,
    password_changed_at: row.password_changed_at,
    password_change_required: Boolean(row.password_one_time),
  }
}

/** Who acts and from where, for the audit log. */
export interface Acting {
  actor: AuditActor
  ip: string | null
  now: Date
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/
export const MIN_PASSWORD_LENGTH = 12

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 200)
    throw ValidationError.field(field, `The password must be ${MIN_PASSWORD_LENGTH} to 200 characters.`)
}

export async function listOperators(db: Db): Promise<OperatorView[]> {
  return (await allOperators(db)).map(operatorListView)
}

/**
 * A new operator with the password given (`amparo operator create --password`: its own), or a
 * one-time one generated and answered once, which the operator replaces at its first sign-in
 * (docs/decisions.md, Operator console: sign-in).
 */
export async function createOperator(
  db: Db,
  input: { email: string; role: string; password?: string },
  acting: Acting,
): Promise<{ operator: OperatorView; password: string }> {
  const email = normalizeEmail(input.email)
  if (!EMAIL.test(email) || email.length > 255)
    throw ValidationError.field('email', 'The email must be a valid e-mail address.')
  if (!isOperatorRole(input.role))
    throw ValidationError.field('role', 'The role must be one of admin, adjuster, viewer.')
  const role = input.role
  const password = input.password ?? generatePassword()
  checkPassword(password)
  const passwordHash = await hashPassword(password)
  const operator = await retryingTransaction(db, async (trx) => {
    if (await operatorByEmail(trx, email))
      throw ValidationError.field('email', 'An operator with this e-mail already exists.')
    const row = await insertOperator(trx, {
      email,
      role,
      password_hash: passwordHash,
      password_one_time: input.password === undefined,
      now: acting.now.toISOString(),
    })
    const view = operatorListView(row)
    await auditOperator(trx, { action: 'operator.create', id: row.id, before: null, after: view }, acting)
    return view
  })
  return { operator, password }
}

/** The operator named by id or e-mail. */
export async function findOperator(db: Db, which: { id: number } | { email: string }): Promise<OperatorRow> {
  const row =
    'id' in which ? await operatorById(db, which.id) : await operatorByEmail(db, normalizeEmail(which.email))
  if (!row) throw new NotFoundError('Operator')
  return row
}

/** Disables an operator: its sessions end at once and it can no longer sign in. */
export async function disableOperator(
  db: Db,
  which: { id: number } | { email: string },
  acting: Acting,
): Promise<OperatorView> {
  const found = await findOperator(db, which)
  if ('id' in acting.actor && acting.actor.id === found.id)
    throw new StateError('An operator cannot disable itself.')
  return retryingTransaction(db, async (trx) => {
    const before = operatorListView(found)
    if (found.disabled_at !== null) return before
    const row = await updateOperator(trx, found.id, { disabled_at: acting.now.toISOString() })
    await deleteSessionsOf(trx, found.id)
    const after = operatorListView(row)
    await auditOperator(trx, { action: 'operator.disable', id: found.id, before, after }, acting)
    return after
  })
}

/** An operator's change in the audit log, in the change's transaction. */
export async function auditOperator(
  trx: Trx,
  change: {
    action: `operator.${'create' | 'disable' | 'reset_password' | 'reset_totp' | 'change_password'}`
    id: number
    before: OperatorView | null
    after: OperatorView
  },
  acting: Acting,
): Promise<void> {
  const { action, id, before, after } = change
  await recordAudit(trx, {
    operator: acting.actor,
    action,
    recordType: 'operator',
    recordId: String(id),
    before,
    after,
    ip: acting.ip,
    at: acting.now.toISOString(),
  })
}

/**
 * The demo's operator (test only: README, Operator console): created, or given `password` again,
 * without TOTP. Seeding is no operator's action, so nothing is audited.
 */
export async function ensureDemoOperator(
  db: Db,
  input: { email: string; role: OperatorRole; password: string },
  now: string,
): Promise<void> {
  const passwordHash = await hashPassword(input.password)
  await retryingTransaction(db, async (trx) => {
    const existing = await operatorByEmail(trx, input.email)
    if (!existing)
      await insertOperator(trx, {
        email: input.email,
        role: input.role,
        password_hash: passwordHash,
        password_one_time: false,
        now,
      })
    else await updateOperator(trx, existing.id, { password_hash: passwordHash, disabled_at: null })
  })
}
