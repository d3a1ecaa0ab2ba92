import { useQuery } from '@tanstack/react-query'
import { useRef, useState } from 'react'
import { useCan, useOperator } from '../../session'
import { ErrorBox } from '../../ui'
import { operatorsQuery } from '../operators/operators.queries'
import { type DeskClaim, useAssign } from './claim.queries'

/**
 * Who works the claim: "Atribuir a mim" when nobody does, "Liberar" for one's own; an admin also
 * gives it to another adjuster or admin, or to nobody. The server checks each.
 */
export function ClaimAssignee({ id, claim }: { id: string; claim: DeskClaim }) {
  const me = useOperator()
  const canWork = useCan('adjuster')
  const isAdmin = useCan('admin')
  const assign = useAssign(id)
  const assignee = claim.assignee
  // The button pressed goes away with the change: the focus moves to who works the claim now.
  const whoRef = useRef<HTMLParagraphElement>(null)
  const pick = (operatorId: number | null) =>
    assign.mutate(operatorId, { onSuccess: () => whoRef.current?.focus() })
  return (
    <section className="panel" aria-labelledby="h-assignee">
      <h2 id="h-assignee">Responsável</h2>
      <ErrorBox error={assign.error} />
      <p data-testid="assignee" ref={whoRef} tabIndex={-1}>
        {assignee === null ? (
          <span className="muted">Sem responsável</span>
        ) : assignee.id === me.id ? (
          <>Você ({assignee.email})</>
        ) : (
          assignee.email
        )}
      </p>
      {canWork ? (
        <div className="row">
          {assignee === null ? (
            <button
              type="button"
              className="btn btn-primary"
              disabled={assign.isPending}
              onClick={() => pick(me.id)}
            >
              Atribuir a mim
            </button>
          ) : null}
          {assignee !== null && (assignee.id === me.id || isAdmin) ? (
            <button type="button" className="btn" disabled={assign.isPending} onClick={() => pick(null)}>
              {assignee.id === me.id ? 'Liberar' : 'Remover responsável'}
            </button>
          ) : null}
        </div>
      ) : null}
      {isAdmin ? <Reassign current={assignee?.id ?? null} pending={assign.isPending} onPick={pick} /> : null}
    </section>
  )
}

/** An admin's choice of another adjuster or admin for the claim. */
function Reassign({
  current,
  pending,
  onPick,
}: {
  current: number | null
  pending: boolean
  onPick: (operatorId: number) => void
}) {
  const { data } = useQuery(operatorsQuery)
  const [chosen, setChosen] = useState('')
  const candidates = (data?.data ?? []).filter(
    (o) => o.role !== 'viewer' && o.disabled_at === null && o.id !== current,
  )
  return (
    <form
      className="row reassign"
      onSubmit={(e) => {
        e.preventDefault()
        if (chosen !== '') onPick(Number(chosen))
      }}
    >
      <label>
        Atribuir a
        <select value={chosen} onChange={(e) => setChosen(e.target.value)}>
          <option value="">Escolha um operador…</option>
          {candidates.map((o) => (
            <option key={o.id} value={o.id}>
              {o.email}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="btn" disabled={pending || chosen === ''}>
        Atribuir
      </button>
    </form>
  )
}
