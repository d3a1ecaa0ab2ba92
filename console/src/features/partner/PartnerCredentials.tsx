import { useState } from 'react'
import type { Answer } from '../../api/client'
import { when } from '../../format'
import { useCan } from '../../session'
import { Badge, ErrorBox, TableWrap } from '../../ui'
import { type ConsolePartner, useCredentialChanges } from './partner.queries'

/** The partner's credentials: an admin issues one (its secret shown once) or revokes one, confirmed in place. */
export function PartnerCredentials({
  id,
  credentials,
}: {
  id: string
  credentials: ConsolePartner['credentials']
}) {
  const isAdmin = useCan('admin')
  const { issue, revoke } = useCredentialChanges(id)
  const [issued, setIssued] = useState<Answer<'issueConsoleCredential'> | null>(null)
  const [confirmRevoke, setConfirmRevoke] = useState<number | null>(null)
  const busy = issue.isPending || revoke.isPending

  return (
    <>
      <ErrorBox error={issue.error ?? revoke.error} />
      <section className="panel" aria-labelledby="h-creds">
        <div className="panel-head">
          <h2 id="h-creds">Credenciais</h2>
          {isAdmin ? (
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy}
              onClick={() => {
                revoke.reset()
                issue.mutate(undefined, { onSuccess: setIssued })
              }}
            >
              Emitir credencial
            </button>
          ) : null}
        </div>
        {issued ? (
          <div className="alert alert-warn secret-box" role="status" data-testid="issued-secret">
            <p>
              <strong>Copie o segredo agora: ele não será mostrado de novo.</strong>
            </p>
            <dl className="facts">
              <dt>client_id</dt>
              <dd>
                <code data-testid="issued-client-id">{issued.client_id}</code>
              </dd>
              <dt>client_secret</dt>
              <dd>
                <code data-testid="issued-client-secret">{issued.client_secret}</code>
              </dd>
            </dl>
            <button type="button" className="btn btn-small" onClick={() => setIssued(null)}>
              Já copiei
            </button>
          </div>
        ) : null}
        <TableWrap label="Credenciais">
          <table className="list" data-testid="credentials">
            <thead>
              <tr>
                <th scope="col">client_id</th>
                <th scope="col">Criada em</th>
                <th scope="col">Situação</th>
                {isAdmin ? <th scope="col">Ações</th> : null}
              </tr>
            </thead>
            <tbody>
              {credentials.map((c) => (
                <tr key={c.id} data-client-id={c.client_id}>
                  <th scope="row">
                    <code>{c.client_id}</code>
                  </th>
                  <td>{when(c.created_at)}</td>
                  <td>
                    {c.revoked_at ? (
                      <Badge tone="bad">revogada {when(c.revoked_at)}</Badge>
                    ) : (
                      <Badge tone="ok">ativa</Badge>
                    )}
                  </td>
                  {isAdmin ? (
                    <td>
                      {c.revoked_at ? null : confirmRevoke === c.id ? (
                        <span className="row">
                          <button
                            type="button"
                            className="btn btn-small btn-danger"
                            disabled={busy}
                            onClick={() => {
                              setConfirmRevoke(null)
                              issue.reset()
                              revoke.mutate(c.id)
                            }}
                          >
                            Confirmar revogação <span className="sr-only">de {c.client_id}</span>
                          </button>
                          <button
                            type="button"
                            className="btn btn-small"
                            onClick={() => setConfirmRevoke(null)}
                          >
                            Cancelar
                          </button>
                        </span>
                      ) : (
                        <button
                          type="button"
                          className="btn btn-small btn-danger"
                          disabled={busy}
                          onClick={() => setConfirmRevoke(c.id)}
                        >
                          Revogar <span className="sr-only">{c.client_id}</span>
                        </button>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </section>
    </>
  )
}
