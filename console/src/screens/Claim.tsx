import { type FormEvent, useState } from 'react'
import { get, post } from '../api/client'
import type { ClaimDetail, ClaimDocument } from '../api/types'
import {
  brl,
  bytes,
  DENIAL_LABELS,
  DOC_LABELS,
  day,
  deviceText,
  FRAUD_LABELS,
  KIND_LABELS,
  label,
  METHOD_LABELS,
  parseReais,
  STATUS_LABELS,
  TYPE_LABELS,
  when,
} from '../format'
import { href } from '../router'
import { useCan } from '../session'
import { Badge, ChoiceSelect, ErrorBox, Loading, Notice, PageTitle, statusTone, useLoad } from '../ui'

export function ClaimScreen({ id }: { id: string }) {
  const { data, error, loading, reload } = useLoad(() => get<ClaimDetail>(`/api/claims/${id}`), [id])
  const [notice, setNotice] = useState<string | null>(null)
  return (
    <>
      <p className="crumbs">
        <a href={href('/sinistros')}>← Fila de sinistros</a>
      </p>
      <ErrorBox error={error} />
      {loading && !data ? <Loading /> : null}
      {data ? (
        <ClaimBody
          claim={data}
          notice={notice}
          onDecided={(text) => {
            setNotice(text)
            reload()
          }}
        />
      ) : null}
    </>
  )
}

function planName(plan: unknown): string {
  if (plan == null) return '—'
  if (typeof plan === 'string') return plan
  if (typeof plan === 'object' && 'name' in plan) return String((plan as { name: unknown }).name)
  return '—'
}

function ClaimBody({
  claim,
  notice,
  onDecided,
}: {
  claim: ClaimDetail
  notice: string | null
  onDecided: (text: string) => void
}) {
  const canDecide = useCan('adjuster')
  const c = claim.contract
  return (
    <>
      <PageTitle>{`Sinistro ${claim.number}`}</PageTitle>
      <div className="claim-head">
        <Badge tone={statusTone(claim.status)}>
          <span data-testid="claim-status" data-status={claim.status}>
            {claim.status_label ?? label(STATUS_LABELS, claim.status)}
          </span>
        </Badge>
        <span>{label(TYPE_LABELS, claim.type)}</span>
        <span className="muted">·</span>
        <span>{claim.partner?.name}</span>
        <span className="muted">·</span>
        <span>aberto em {when(claim.opened_at)}</span>
      </div>
      {notice ? <Notice>{notice}</Notice> : null}

      <div className="claim-grid">
        <div className="claim-main">
          {claim.fraud_signals.length > 0 ? (
            <section className="panel panel-warn" aria-labelledby="h-fraud">
              <h2 id="h-fraud">Sinais de fraude</h2>
              <ul data-testid="fraud-signals">
                {claim.fraud_signals.map((s) => (
                  <li key={s}>{label(FRAUD_LABELS, s)}</li>
                ))}
              </ul>
            </section>
          ) : null}

          <section className="panel" aria-labelledby="h-docs">
            <h2 id="h-docs">Documentos ({claim.documents?.length ?? 0})</h2>
            {(claim.documents ?? []).length === 0 ? <p className="muted">Nenhum documento enviado.</p> : null}
            <div className="docs">
              {(claim.documents ?? []).map((d) => (
                <DocumentPreview key={d.id} doc={d} />
              ))}
            </div>
          </section>

          <section className="panel" aria-labelledby="h-timeline">
            <h2 id="h-timeline">Linha do tempo do contrato</h2>
            {(claim.timeline ?? []).length === 0 ? <p className="muted">Sem eventos.</p> : null}
            <ol className="timeline">
              {(claim.timeline ?? []).map((e, i) => (
                <li key={e.id ?? i}>
                  <time>{when(e.created_at ?? e.occurred_at)}</time> <code>{e.type}</code>
                  {e.description ? <span> — {e.description}</span> : null}
                </li>
              ))}
            </ol>
          </section>
        </div>

        <aside className="claim-side">
          {canDecide ? <DecisionPanel key={claim.status} claim={claim} onDecided={onDecided} /> : null}
          {claim.decision ? (
            <section className="panel" aria-labelledby="h-decision">
              <h2 id="h-decision">Decisão</h2>
              <dl className="facts">
                <dt>Resultado</dt>
                <dd>{label(STATUS_LABELS, claim.decision.outcome)}</dd>
                {claim.decision.settlement_method ? (
                  <>
                    <dt>Forma</dt>
                    <dd>{label(METHOD_LABELS, claim.decision.settlement_method)}</dd>
                    <dt>Aprovado</dt>
                    <dd>{brl(claim.decision.approved_amount_cents)}</dd>
                    <dt>A pagar</dt>
                    <dd>{brl(claim.decision.payable_amount_cents)}</dd>
                  </>
                ) : null}
                {claim.decision.reason_code ? (
                  <>
                    <dt>Motivo</dt>
                    <dd>{label(DENIAL_LABELS, claim.decision.reason_code)}</dd>
                  </>
                ) : null}
                {claim.decision.note ? (
                  <>
                    <dt>Nota</dt>
                    <dd>{claim.decision.note}</dd>
                  </>
                ) : null}
                <dt>Em</dt>
                <dd>{when(claim.decision.decided_at)}</dd>
                {claim.settlement?.reference ? (
                  <>
                    <dt>Liquidação</dt>
                    <dd>
                      {claim.settlement.reference} ({when(claim.settlement.settled_at)})
                    </dd>
                  </>
                ) : null}
              </dl>
            </section>
          ) : null}
          <section className="panel" aria-labelledby="h-contract">
            <h2 id="h-contract">Contrato</h2>
            <dl className="facts">
              <dt>Tipo</dt>
              <dd>{label(KIND_LABELS, c?.kind)}</dd>
              <dt>Número</dt>
              <dd>{c?.number ?? c?.id ?? '—'}</dd>
              <dt>Situação</dt>
              <dd>{c?.status ?? '—'}</dd>
              <dt>Plano</dt>
              <dd>{planName(c?.plan)}</dd>
              <dt>Vigência</dt>
              <dd>
                {day(c?.starts_at)} a {day(c?.ends_at ?? c?.ends_on)}
              </dd>
              <dt>LMI</dt>
              <dd>{brl(claim.payable_preview?.lmi_cents)}</dd>
              <dt>Franquia</dt>
              <dd>{brl(claim.payable_preview?.franchise_cents)}</dd>
            </dl>
          </section>
          <section className="panel" aria-labelledby="h-customer">
            <h2 id="h-customer">Cliente e aparelho</h2>
            <dl className="facts">
              <dt>Nome</dt>
              <dd>{claim.customer?.name ?? claim.customer_name}</dd>
              <dt>Documento</dt>
              <dd>{claim.customer?.document ?? '—'}</dd>
              {claim.customer?.email ? (
                <>
                  <dt>E-mail</dt>
                  <dd>{claim.customer.email}</dd>
                </>
              ) : null}
              <dt>Aparelho</dt>
              <dd>{deviceText(claim.device)}</dd>
              <dt>Ocorrência</dt>
              <dd>{when(claim.occurred_at)}</dd>
              {claim.police_report?.number ? (
                <>
                  <dt>B.O.</dt>
                  <dd>
                    {claim.police_report.number} ({day(claim.police_report.issued_on)})
                  </dd>
                </>
              ) : null}
              {claim.description ? (
                <>
                  <dt>Relato</dt>
                  <dd>{claim.description}</dd>
                </>
              ) : null}
            </dl>
          </section>
        </aside>
      </div>
    </>
  )
}

function DocumentPreview({ doc }: { doc: ClaimDocument }) {
  const title = `${label(DOC_LABELS, doc.kind)} · ${doc.content_type} · ${bytes(doc.size)}`
  return (
    <figure className="doc">
      {doc.content_type.startsWith('image/') ? (
        <img src={doc.url} alt={`${label(DOC_LABELS, doc.kind)} enviado pelo parceiro`} loading="lazy" />
      ) : doc.content_type === 'application/pdf' ? (
        <iframe src={doc.url} title={title} />
      ) : (
        <p className="muted">Sem pré-visualização.</p>
      )}
      <figcaption>
        {title} ·{' '}
        <a href={doc.url} target="_blank" rel="noreferrer">
          abrir
        </a>
      </figcaption>
    </figure>
  )
}

type Action = 'approve' | 'deny' | 'settle'
const REVIEW_LABELS: Record<Action, string> = {
  approve: 'Revisar aprovação',
  deny: 'Revisar negativa',
  settle: 'Revisar liquidação',
}

function DecisionPanel({ claim, onDecided }: { claim: ClaimDetail; onDecided: (text: string) => void }) {
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
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)

  if (!canApprove && !canDeny && !canSettle) return null

  const franchise = claim.payable_preview?.franchise_cents ?? 0
  const lmi = claim.payable_preview?.lmi_cents
  const approved = parseReais(amount)
  const payable = approved == null ? null : Math.max(0, approved - franchise)
  const amountProblem =
    amount === ''
      ? null
      : approved == null
        ? 'Valor inválido (ex.: 1.234,56).'
        : approved <= 0
          ? 'O valor deve ser maior que zero.'
          : lmi != null && approved > lmi
            ? `Acima do LMI do contrato (${brl(lmi)}).`
            : null

  function review(e: FormEvent) {
    e.preventDefault()
    setError(null)
    if (action === 'approve' && (approved == null || amountProblem)) return
    setConfirming(true)
  }

  async function confirm() {
    setBusy(true)
    setError(null)
    try {
      if (action === 'approve') {
        await post(`/api/claims/${claim.id}/approve`, {
          settlement_method: method,
          approved_amount_cents: approved,
        })
        onDecided(`Sinistro aprovado: ${brl(approved)}, a pagar ${brl(payable)}.`)
      } else if (action === 'deny') {
        await post(`/api/claims/${claim.id}/deny`, { reason_code: reason, note })
        onDecided('Sinistro negado.')
      } else {
        await post(`/api/claims/${claim.id}/settle`, { reference })
        onDecided('Sinistro liquidado.')
      }
      setConfirming(false)
    } catch (err) {
      setError(err)
      setConfirming(false)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="panel panel-action" aria-labelledby="h-decide">
      <h2 id="h-decide">{canSettle ? 'Liquidar' : 'Decidir'}</h2>
      <ErrorBox error={error} />
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
                choices={METHOD_LABELS}
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
              <ChoiceSelect label="Motivo" choices={DENIAL_LABELS} value={reason} onChange={setReason} />
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
                {label(METHOD_LABELS, claim.decision?.settlement_method)} · a pagar{' '}
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
            <button type="submit" className="btn btn-primary">
              {REVIEW_LABELS[action]}
            </button>
          ) : null}
        </fieldset>
      </form>
      {confirming ? (
        <div className="confirm" role="alertdialog" aria-labelledby="confirm-text">
          <p id="confirm-text">
            {action === 'approve'
              ? `Aprovar ${brl(approved)} por ${label(METHOD_LABELS, method).toLowerCase()}? Valor a pagar: ${brl(payable)}.`
              : action === 'deny'
                ? `Negar o sinistro (${label(DENIAL_LABELS, reason)})? O parceiro verá a nota.`
                : `Liquidar com a referência “${reference}”?`}
          </p>
          <div className="row">
            <button type="button" className="btn btn-primary" disabled={busy} onClick={confirm}>
              {busy ? 'Enviando…' : 'Confirmar'}
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
