import { createContext, useContext } from 'react'
import type { Answer } from './api/client'

/** The signed-in operator, as GET /api/session answers it. */
export type Operator = Answer<'getSession'>['operator']
type Role = Operator['role']

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
