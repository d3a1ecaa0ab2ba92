import { type FormEvent, useState } from 'react'
import { get, post } from '../api/client'
import type { Operator, Page } from '../api/types'
import { label, ROLE_LABELS, when } from '../format'
import { useCan, useOperator } from '../session'
import { Badge, ErrorBox, Loading, PageTitle, TableWrap, useLoad } from '../ui'

export function OperatorsScreen() {
  const me = useOperator()
  const isAdmin = useCan('admin')
  const { data, error, loading, reload } = useLoad(
    () => get<Operator[] | Page<Operator> | { operators: Operator[] }>('/api/operators').then(listOf),
    [],
  )
  const [email, setEmail] = useState('')
  const [role, setRole] = useState('viewer')
  const [secret, setSecret] = useState<{ email: string; password: string } | null>(null)
  const [actionError, setActionError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  async function act(run: () => Promise<void>) {
    setBusy(true)
    setActionError(null)
    try {
      await run()
      reload()
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(false)
    }
  }

  function create(e: FormEvent) {
    e.preventDefault()
    act(async () => {
      const made = await post<{ operator: Operator; password: string }>('/api/operators', { email, role })
      setSecret({ email: made.operator.email, password: made.password })
      setEmail('')
    })
  }

  return (
    <>
      <PageTitle>Operadores</PageTitle>
      <ErrorBox error={actionError} />
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
        <form className="filters" onSubmit={create} aria-label="Novo operador">
          <label>
            E-mail
            <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <label>
            Papel
            <select value={role} onChange={(e) => setRole(e.target.value)}>
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
      {loading && !data ? <Loading /> : null}
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
                          onClick={() =>
                            window.confirm(`Desativar ${o.email}?`) &&
                            act(async () => {
                              await post(`/api/operators/${o.id}/disable`)
                            })
                          }
                        >
                          Desativar <span className="sr-only">{o.email}</span>
                        </button>
                      ) : null}
                      {!o.disabled_at ? (
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={busy}
                          onClick={() =>
                            act(async () => {
                              const r = await post<{ password: string }>(
                                `/api/operators/${o.id}/reset-password`,
                              )
                              setSecret({ email: o.email, password: r.password })
                            })
                          }
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

function listOf(answer: Operator[] | Page<Operator> | { operators: Operator[] }): Operator[] {
  if (Array.isArray(answer)) return answer
  if ('data' in answer) return answer.data
  return answer.operators
}
