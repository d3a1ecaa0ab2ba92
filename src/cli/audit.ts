import { userInfo } from 'node:os'
import type { AuditActor } from '../modules/operators/audit.service.js'
import type { Io } from './context.js'

/**
 * The CLI's actor in the audit log: `cli:<os user>` (README, Operator console: audit). The OS user
 * is who ran the command on the server; `USER` only when the system cannot say.
 */
export function cliActor(io: Io): AuditActor {
  let name: string | undefined
  try {
    name = userInfo().username
  } catch {
    name = io.env.USER ?? io.env.USERNAME
  }
  return { cli: name || 'unknown' }
}
