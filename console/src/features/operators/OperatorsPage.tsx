import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useRef, useState } from 'react'
import type { Input } from '../../api/client'
import { label, ROLE_LABELS, when } from '../../format'
import { useCan, useOperator } from '../../session'
import { Badge, ErrorBox, Loading, Notice, PageTitle, TableWrap, useFocusOn } from '../../ui'
import { type ConsoleOperator, operatorsQuery, useOperatorChanges } from './operators.queries'

/** A change to another operator that asks for confirmation first. */
type Pending = { kind: 'disable' | 'password' | 'totp'; operator: ConsoleOperator }

const QUESTIONS: Record<Pending['kind'], (email: string) => string> = {
  disable: (email) => `Desativar ${email}? As sessões dele terminam e ele não entra mais.`,
  password: (email) =>
    `Gerar uma senha provisória para ${email}? A senha atual deixa de valer, as sessões dele terminam e ele troca a provisória ao entrar. O segundo fator continua o mesmo.`,
  totp: (email) =>
    `Redefinir o segundo fator de ${email}? O aplicativo autenticador atual deixa de valer, as sessões dele terminam e ele cadastra um novo na próxima entrada. A senha continua a mesma.`,
}

const CONFIRMS: Record<Pending['kind'], string> = {
  disable: 'Confirmar desativação',
  password: 'Gerar senha provisória',
  totp: 'Redefinir segundo fator',
}

/**
 * `#/operadores`: the console's operators; an admin creates one, and disables one, gives it a
 * one-time password or clears its second factor, each confirmed first. Focus moves to the
 * confirmation, then to its result.
 */
export function OperatorsPage() {
  const me = useOperator()
  const isAdmin = useCan('admin')
  const { data: list, error, isLoading } = useQuery(operatorsQuery)
  const data = list?.data
  const changes = useOperatorChanges()
  const [create, disable, resetPassword, resetTotp] = changes
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Input<'createOperator'>['role']>('viewer')
  const [secret, setSecret] = useState<{ id: number; email: string; password: string } | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [pending, setPending] = useState<Pending | null>(null)
  const busy = changes.some((change) => change.isPending)
  const failed = changes.find((change) => change.error)?.error
  // The focus follows each step (the pressed button is disabled meanwhile): the confirmation, then
  // its result or error; cancelled, back to the button that asked; the password copied, back to
  // that operator's "Nova senha".
  const confirmRef = useFocusOn<HTMLButtonElement>(pending)
  const secretRef = useFocusOn<HTMLDivElement>(secret)
  const noticeRef = useFocusOn<HTMLDivElement>(notice)
  const errorRef = useFocusOn<HTMLDivElement>(failed)
  const [backTo, setBackTo] = useState<{ id: number } | null>(null)
  const backRef = useFocusOn<HTMLButtonElement>(backTo)
  const trigger = useRef<HTMLElement | null>(null)

  /** One change's error and result at a time, as the last one started. */
  function starting() {
    for (const change of changes) change.reset()
    setSecret(null)
    setNotice(null)
  }

  function ask(kind: Pending['kind'], operator: ConsoleOperator, button: HTMLElement) {
    trigger.current = button
    starting()
    setPending({ kind, operator })
  }

  function cancel() {
    setPending(null)
    trigger.current?.focus()
  }

  function confirm() {
    if (!pending) return
    const { kind, operator } = pending
    setPending(null)
    if (kind === 'disable')
      disable.mutate(operator.id, { onSuccess: () => setNotice(`${operator.email} desativado.`) })
    else if (kind === 'password')
      resetPassword.mutate(operator.id, {
        onSuccess: (r) => setSecret({ id: operator.id, email: operator.email, password: r.password }),
      })
    else
      resetTotp.mutate(operator.id, {
        onSuccess: () =>
          setNotice(
            `Segundo fator de ${operator.email} redefinido: ele cadastra um novo na próxima entrada.`,
          ),
      })
  }

  function submit(e: FormEvent) {
    e.preventDefault()
    starting()
    setPending(null)
    create.mutate(
      { email, role },
      {
        onSuccess: (made) => {
          setSecret({ id: made.operator.id, email: made.operator.email, password: made.password })
          setEmail('')
        },
      },
    )
  }

  return (
    <>
      <PageTitle>Operadores</PageTitle>
      <div ref={errorRef} tabIndex={-1}>
        <ErrorBox error={failed} />
      </div>
      {secret ? (
        <div className="alert alert-warn secret-box" role="status" ref={secretRef} tabIndex={-1}>
          <p>
            <strong>Senha provisória de {secret.email} (mostrada só agora):</strong>{' '}
            <code data-testid="operator-password">{secret.password}</code>
          </p>
          <p className="small">Na primeira entrada, o operador troca esta senha por uma sua.</p>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              setSecret(null)
              setBackTo({ id: secret.id })
            }}
          >
            Já copiei
          </button>
        </div>
      ) : null}
      {notice ? <Notice ref={noticeRef}>{notice}</Notice> : null}
      {pending ? (
        <div className="confirm" role="alertdialog" aria-labelledby="operator-confirm-text">
          <p id="operator-confirm-text">{QUESTIONS[pending.kind](pending.operator.email)}</p>
          <div className="row">
            <button
              ref={confirmRef}
              type="button"
              className={`btn ${pending.kind === 'disable' ? 'btn-danger' : 'btn-primary'}`}
              disabled={busy}
              onClick={confirm}
            >
              {CONFIRMS[pending.kind]}
            </button>
            <button type="button" className="btn" onClick={cancel}>
              Cancelar
            </button>
          </div>
        </div>
      ) : null}
      {isAdmin ? (
        <form className="filters" onSubmit={submit} aria-label="Novo operador">
          <label>
            E-mail
            <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <label>
            Papel
            <select value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
              {Object.entries(ROLE_LABELS).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Criar operador
          </button>
        </form>
      ) : null}
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {data ? (
        <TableWrap label="Operadores">
          <table className="list cards" data-testid="operators">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Papel</th>
                <th scope="col">Situação</th>
                <th scope="col">Duas etapas</th>
                <th scope="col">Criado em</th>
                {isAdmin ? <th scope="col">Ações</th> : null}
              </tr>
            </thead>
            <tbody>
              {data.map((o) => (
                <tr key={o.id} data-operator={o.email}>
                  <th scope="row">{o.email}</th>
                  <td data-label="Papel">{label(ROLE_LABELS, o.role)}</td>
                  <td data-label="Situação">
                    {o.disabled_at ? (
                      <Badge tone="bad">desativado</Badge>
                    ) : o.password_change_required ? (
                      <Badge tone="warn">senha provisória</Badge>
                    ) : (
                      <Badge tone="ok">ativo</Badge>
                    )}
                  </td>
                  <td data-label="Duas etapas">
                    {o.totp_enrolled ? 'ativada' : <span className="muted">não</span>}
                  </td>
                  <td data-label="Criado em">{when(o.created_at)}</td>
                  {isAdmin ? (
                    <td data-label="Ações">
                      <span className="row">
                        {!o.disabled_at && o.id !== me.id ? (
                          <button
                            type="button"
                            className="btn btn-small btn-danger"
                            disabled={busy}
                            onClick={(e) => ask('disable', o, e.currentTarget)}
                          >
                            Desativar <span className="sr-only">{o.email}</span>
                          </button>
                        ) : null}
                        {!o.disabled_at && o.id !== me.id ? (
                          <button
                            type="button"
                            className="btn btn-small"
                            disabled={busy}
                            ref={backTo?.id === o.id ? backRef : undefined}
                            onClick={(e) => ask('password', o, e.currentTarget)}
                          >
                            Nova senha <span className="sr-only">para {o.email}</span>
                          </button>
                        ) : null}
                        {!o.disabled_at && o.id !== me.id && o.totp_enrolled ? (
                          <button
                            type="button"
                            className="btn btn-small"
                            disabled={busy}
                            onClick={(e) => ask('totp', o, e.currentTarget)}
                          >
                            Novo segundo fator <span className="sr-only">para {o.email}</span>
                          </button>
                        ) : null}
                      </span>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </>
  )
}
