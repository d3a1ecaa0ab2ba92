import type { Answer } from '../../api/client'
import { brl, day, FRAUD_SIGNAL_LABELS, label, plural } from '../../format'
import { Badge } from '../../ui'

// The queue's cells that say more than one value: the deadline, the age, the amount and the
// fraud signals (README, Operator console: Sinistros). Each says in words what its colour says;
// each is one element, a card's cell on a phone placing it beside its column's name.

export type QueueClaim = Answer<'listDeskClaims'>['data'][number]

const DEADLINE_TONES = { overdue: 'bad', due_this_week: 'warn', on_time: 'ok', suspended: 'neutral' } as const

/** "Atrasado" and how late, "Vence esta semana" and how soon, or why there is no deadline. */
export function DeadlineCell({ claim }: { claim: QueueClaim }) {
  const deadline = claim.deadline
  if (deadline === null) return <span className="muted">—</span>
  const left = deadline.days_left
  const detail =
    left === null
      ? 'até chegarem os documentos'
      : left < 0
        ? `${plural(-left, 'dia', 'dias')} de atraso`
        : left === 0
          ? 'vence hoje'
          : `${left === 1 ? 'falta' : 'faltam'} ${plural(left, 'dia', 'dias')}`
  return (
    <div>
      <Badge tone={DEADLINE_TONES[deadline.state]}>{deadline.state_label}</Badge>
      <div className="small">
        {deadline.due_on ? `${day(deadline.due_on)} · ` : ''}
        {detail}
      </div>
    </div>
  )
}

export function AgeCell({ claim }: { claim: QueueClaim }) {
  return (
    <div>
      {plural(claim.age_days, 'dia', 'dias')}
      <div className="small muted">desde {day(claim.opened_at)}</div>
    </div>
  )
}

/** What the claim pays once decided; before that, the most it can pay (LMI − franquia). */
export function AmountCell({ claim }: { claim: QueueClaim }) {
  if (claim.payable_amount_cents !== null) {
    return (
      <div className="num">
        {brl(claim.payable_amount_cents)}
        <div className="small muted">{claim.status === 'settled' ? 'pago' : 'a pagar'}</div>
      </div>
    )
  }
  if (claim.status === 'denied' || claim.status === 'withdrawn') return <span className="muted">—</span>
  return (
    <div className="num">
      {brl(Math.max(0, claim.lmi_cents - claim.franchise_cents))}
      <div className="small muted">máx. (LMI − franquia)</div>
    </div>
  )
}

/** Each signal by its name. */
export function FraudCell({ claim }: { claim: QueueClaim }) {
  if (claim.fraud_signals.length === 0) return <span className="muted">—</span>
  return (
    <ul className="signals">
      {claim.fraud_signals.map((signal) => (
        <li key={signal}>{label(FRAUD_SIGNAL_LABELS, signal)}</li>
      ))}
    </ul>
  )
}
