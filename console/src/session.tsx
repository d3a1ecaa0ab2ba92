import { createContext, useContext } from 'react'
import type { Operator, Role } from './api/types'

export const SessionContext = createContext<Operator | null>(null)

const RANK: Record<Role, number> = { viewer: 0, adjuster: 1, admin: 2 }

export function useOperator(): Operator {
  const operator = useContext(SessionContext)
  if (!operator) throw new Error('no operator session')
  return operator
}

/** Whether the signed-in operator's role reaches `role` (the server checks again on every call). */
export function useCan(role: Role): boolean {
  const operator = useContext(SessionContext)
  return operator != null && RANK[operator.role] >= RANK[role]
}
