import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import type { Input } from '../../api/client'
import { label, ROLE_LABELS, when } from '../../format'
import { useCan, useOperator } from '../../session'
import { Badge, ErrorBox, Loading, PageTitle, TableWrap } from '../../ui'
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
  const [secret, setSecret] = useState<{ email: string; password: string } | null>(null)
  const busy = changes.some((change) => change.isPending)

  /** One change's error at a time, as the last one started. */
  function starting() {
    for (const change of changes) change.reset()
  }

  function submit(e: FormEvent) {
    e.preventDefault()
    starting()
    create.mutate(
      { email, role },
      {
        onSuccess: (made) => {
          setSecret({ email: made.operator.email, password: made.password })
          setEmail('')
        },
      },
    )
  }

  return (
    <>
      <PageTitle>Operadores</PageTitle>
      <ErrorBox error={changes.find((change) => change.error)?.error} />
      {secret ? (
        <div className="alert alert-warn secret-box" role="status">
          <p>
            <strong>Senha provisória de {secret.email} (mostrada só agora):</strong>{' '}
            <code data-testid="operator-password">{secret.password}</code>
          </p>
          <button type="button" className="btn btn-small" onClick={() => setSecret(null)}>
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
          <table className="list" data-testid="operators">
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
                  <td>{label(ROLE_LABELS, o.role)}</td>
                  <td>
                    {o.disabled_at ? <Badge tone="bad">desativado</Badge> : <Badge tone="ok">ativo</Badge>}
                  </td>
                  <td>{o.totp_enrolled ? 'ativada' : <span className="muted">não</span>}</td>
                  <td>{when(o.created_at)}</td>
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
                            disable.mutate(o.id)
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
                          onClick={() => {
                            starting()
                            resetPassword.mutate(o.id, {
                              onSuccess: (r) => setSecret({ email: o.email, password: r.password }),
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
