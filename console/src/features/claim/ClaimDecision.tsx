import { type FormEvent, useEffect, useRef, useState } from 'react'
import { brl, DENIAL_REASON_LABELS, label, parseReais, SETTLEMENT_METHOD_LABELS } from '../../format'
import { useOperator } from '../../session'
import { ChoiceSelect, ErrorBox, useFocusOn } from '../../ui'
import { type Decision, type DeskClaim, StaleClaimError, useDecision } from './claim.queries'

type Action = Exclude<Decision['action'], 'request-documents'>
const REVIEW_LABELS: Record<Action, string> = {
  approve: 'Revisar aprovação',
  deny: 'Revisar negativa',
  settle: 'Revisar liquidação',
}

/**
 * The adjuster's form: approve (the payable shown as typed) or deny, then settle; each asks for
 * confirmation, which warns when the claim is someone else's. Should another operator decide first,
 * `onStale` gets the claim as read again.
 */
export function ClaimDecision({
  id,
  claim,
  onDecided,
  onStale,
}: {
  id: string
  claim: DeskClaim
  onDecided: (text: string) => void
  onStale: (claim: DeskClaim) => void
}) {
  const me = useOperator()
  const othersClaim = claim.assignee !== null && claim.assignee.id !== me.id ? claim.assignee : null
  const canApprove = claim.status === 'under_review'
  const canDeny = claim.status === 'under_review' || claim.status === 'documents_pending'
  const canSettle = claim.status === 'approved'
  const [action, setAction] = useState<Action>(canSettle ? 'settle' : canApprove ? 'approve' : 'deny')
  const [method, setMethod] = useState('repair')
  const [amount, setAmount] = useState('')
  const [reason, setReason] = useState('not_covered')
  const [note, setNote] = useState('')
  const [reference, setReference] = useState('')
  const [confirming, setConfirming] = useState(false)
  const decide = useDecision(id)
  const confirmRef = useFocusOn<HTMLDivElement>(confirming)
  const reviewRef = useRef<HTMLButtonElement>(null)
  const wasConfirming = useRef(false)
  useEffect(() => {
    // Out of the confirmation (cancelled, or refused): back to the form, unless a result took the focus.
    if (wasConfirming.current && !confirming && document.activeElement === document.body) {
      reviewRef.current?.focus()
    }
    wasConfirming.current = confirming
  }, [confirming])

  if (!canApprove && !canDeny && !canSettle) return null

  const { franchise_cents: franchise, lmi_cents: lmi } = claim.payable_preview
  const approved = parseReais(amount)
  const payable = approved == null ? null : Math.max(0, approved - franchise)
  const amountProblem =
    amount === ''
      ? null
      : approved == null
        ? 'Valor inválido (ex.: 1.234,56).'
        : approved <= 0
          ? 'O valor deve ser maior que zero.'
          : approved > lmi
            ? `Acima do LMI do contrato (${brl(lmi)}).`
            : null

  function decision(): Decision | null {
    if (action === 'approve') {
      if (approved == null || amountProblem) return null
      return { action, body: { settlement_method: method, approved_amount_cents: approved } }
    }
    if (action === 'deny') return { action, body: { reason_code: reason, note } }
    return { action, body: { reference } }
  }

  function review(e: FormEvent) {
    e.preventDefault()
    decide.reset()
    if (decision()) setConfirming(true)
  }

  async function confirm() {
    const chosen = decision()
    if (!chosen) return
    const done =
      chosen.action === 'approve'
        ? `Sinistro aprovado: ${brl(approved)}, a pagar ${brl(payable)}.`
        : chosen.action === 'deny'
          ? 'Sinistro negado.'
          : 'Sinistro concluído.'
    try {
      await decide.mutateAsync(chosen)
      onDecided(done)
    } catch (error) {
      // Another operator decided first: the page shows the claim read again. Else the form shows it.
      if (error instanceof StaleClaimError) onStale(error.claim)
    } finally {
      setConfirming(false)
    }
  }

  const busy = decide.isPending
  return (
    <section className="panel panel-action" aria-labelledby="h-decide">
      <h2 id="h-decide">{canSettle ? 'Liquidar' : 'Decidir'}</h2>
      <ErrorBox error={decide.error instanceof StaleClaimError ? null : decide.error} />
      {!canSettle ? (
        <fieldset className="segmented" disabled={confirming}>
          <legend className="sr-only">Ação</legend>
          {(canApprove ? (['approve', 'deny'] as const) : (['deny'] as const)).map((choice) => (
            <label key={choice}>
              <input
                type="radio"
                name="action"
                checked={action === choice}
                onChange={() => setAction(choice)}
              />
              {choice === 'approve' ? 'Aprovar' : 'Negar'}
            </label>
          ))}
        </fieldset>
      ) : null}
      <form className="stack" onSubmit={review}>
        <fieldset className="stack plain" disabled={confirming || busy}>
          {action === 'approve' ? (
            <>
              <ChoiceSelect
                label="Forma de liquidação"
                choices={SETTLEMENT_METHOD_LABELS}
                value={method}
                onChange={setMethod}
              />
              <label>
                Valor aprovado (R$)
                <input
                  name="approved_amount"
                  inputMode="decimal"
                  required
                  value={amount}
                  aria-invalid={amountProblem ? true : undefined}
                  aria-describedby="payable-hint"
                  onChange={(e) => setAmount(e.target.value)}
                  placeholder="0,00"
                />
              </label>
              <p id="payable-hint" className="payable" aria-live="polite">
                {amountProblem ? (
                  <span className="text-bad">{amountProblem}</span>
                ) : (
                  <>
                    Franquia {brl(franchise)} · <strong>A pagar: </strong>
                    <strong data-testid="payable">{brl(payable ?? 0)}</strong>
                  </>
                )}
              </p>
            </>
          ) : null}
          {action === 'deny' ? (
            <>
              <ChoiceSelect
                label="Motivo"
                choices={DENIAL_REASON_LABELS}
                value={reason}
                onChange={setReason}
              />
              <label>
                Nota para o parceiro
                <textarea
                  name="note"
                  required
                  rows={3}
                  value={note}
                  onChange={(e) => setNote(e.target.value)}
                />
              </label>
            </>
          ) : null}
          {action === 'settle' ? (
            <>
              <p className="small">
                {label(SETTLEMENT_METHOD_LABELS, claim.decision?.settlement_method)} · a pagar{' '}
                {brl(claim.decision?.payable_amount_cents)}. Reposição e indenização encerram o contrato.
              </p>
              <label>
                Referência (ordem de reparo ou transferência)
                <input
                  name="reference"
                  required
                  maxLength={100}
                  value={reference}
                  onChange={(e) => setReference(e.target.value)}
                />
              </label>
            </>
          ) : null}
          {!confirming ? (
            <button type="submit" className="btn btn-primary" ref={reviewRef}>
              {REVIEW_LABELS[action]}
            </button>
          ) : null}
        </fieldset>
      </form>
      {confirming ? (
        <div
          className="confirm"
          role="alertdialog"
          aria-labelledby="confirm-text"
          ref={confirmRef}
          tabIndex={-1}
        >
          <p id="confirm-text">
            {action === 'approve'
              ? `Aprovar ${brl(approved)} por ${label(SETTLEMENT_METHOD_LABELS, method).toLowerCase()}? Valor a pagar: ${brl(payable)}.`
              : action === 'deny'
                ? `Negar o sinistro (${label(DENIAL_REASON_LABELS, reason)})? O parceiro verá a nota.`
                : `Liquidar com a referência “${reference}”?`}
          </p>
          {othersClaim ? (
            <p className="text-bad" data-testid="others-claim">
              Este sinistro está atribuído a {othersClaim.email}. Decidir mesmo assim?
            </p>
          ) : null}
          <div className="row">
            <button type="button" className="btn btn-primary" disabled={busy} onClick={confirm}>
              {busy ? 'Enviando…' : othersClaim ? 'Decidir mesmo assim' : 'Confirmar'}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setConfirming(false)}>
              Cancelar
            </button>
          </div>
        </div>
      ) : null}
    </section>
  )
}
