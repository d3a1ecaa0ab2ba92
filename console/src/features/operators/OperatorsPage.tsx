import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import type { Input } from '../../api/client'
import { label, ROLE_LABELS, when } from '../../format'
import { useCan, useOperator } from '../../session'
import { Badge, ErrorBox, Loading, Notice, PageTitle, TableWrap, useFocusOn } from '../../ui'
import { operatorsQuery, useOperatorChanges } from './operators.queries'

/** `#/operadores`: the console's operators; an admin creates one, disables one or gives a new password. */
export function OperatorsPage() {
  const me = useOperator()
  const isAdmin = useCan('admin')
  const { data: list, error, isLoading } = useQuery(operatorsQuery)
  const data = list?.data
  const changes = useOperatorChanges()
  const [create, disable, resetPassword] = changes
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Input<'createOperator'>['role']>('viewer')
  const [secret, setSecret] = useState<{ id: number; email: string; password: string } | null>(null)
  const busy = changes.some((change) => change.isPending)
  // The focus follows each result (the pressed button is disabled meanwhile): the password shown,
  // the operator disabled; once the password is copied, back to that operator's row.
  const [disabled, setDisabled] = useState<string | null>(null)
  const [backTo, setBackTo] = useState<{ id: number } | null>(null)
  const secretRef = useFocusOn<HTMLDivElement>(secret)
  const disabledRef = useFocusOn<HTMLDivElement>(disabled)
  const backRef = useFocusOn<HTMLButtonElement>(backTo)

  /** One change's error at a time, as the last one started. */
  function starting() {
    for (const change of changes) change.reset()
    setDisabled(null)
  }

  function submit(e: FormEvent) {
    e.preventDefault()
    starting()
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
      <ErrorBox error={changes.find((change) => change.error)?.error} />
      {disabled ? <Notice ref={disabledRef}>{disabled} desativado.</Notice> : null}
      {secret ? (
        <div className="alert alert-warn secret-box" role="status" ref={secretRef} tabIndex={-1}>
          <p>
            <strong>Senha provisória de {secret.email} (mostrada só agora):</strong>{' '}
            <code data-testid="operator-password">{secret.password}</code>
          </p>
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
                <tr key={o.id}>
                  <th scope="row">{o.email}</th>
                  <td data-label="Papel">{label(ROLE_LABELS, o.role)}</td>
                  <td data-label="Situação">
                    {o.disabled_at ? <Badge tone="bad">desativado</Badge> : <Badge tone="ok">ativo</Badge>}
                  </td>
                  <td data-label="Duas etapas">
                    {o.totp_enrolled ? 'ativada' : <span className="muted">não</span>}
                  </td>
                  <td data-label="Criado em">{when(o.created_at)}</td>
                  {isAdmin ? (
                    <td className="row">
                      {!o.disabled_at && o.id !== me.id ? (
                        <button
                          type="button"
                          className="btn btn-small btn-danger"
                          disabled={busy}
                          onClick={() => {
                            if (!window.confirm(`Desativar ${o.email}?`)) return
                            starting()
                            disable.mutate(o.id, { onSuccess: () => setDisabled(o.email) })
                          }}
                        >
                          Desativar <span className="sr-only">{o.email}</span>
                        </button>
                      ) : null}
                      {!o.disabled_at ? (
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={busy}
                          ref={backTo?.id === o.id ? backRef : undefined}
                          onClick={() => {
                            starting()
                            resetPassword.mutate(o.id, {
                              onSuccess: (r) => setSecret({ id: o.id, email: o.email, password: r.password }),
                            })
                          }}
                        >
                          Nova senha <span className="sr-only">para {o.email}</span>
                        </button>
                      ) : null}
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
