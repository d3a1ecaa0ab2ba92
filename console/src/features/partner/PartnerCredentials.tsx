import { useState } from 'react'
import type { Answer } from '../../api/client'
import { when } from '../../format'
import { useCan } from '../../session'
import { Badge, ErrorBox, Notice, TableWrap, useFocusOn } from '../../ui'
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
  // The focus follows each step: the secret issued, the revocation to confirm, its result; and
  // back to the button that started it when the step closes.
  const [revoked, setRevoked] = useState<string | null>(null)
  const [backTo, setBackTo] = useState<{ revoke: number } | { issue: true } | null>(null)
  const issuedRef = useFocusOn<HTMLDivElement>(issued)
  const confirmRef = useFocusOn<HTMLFieldSetElement>(confirmRevoke)
  const revokedRef = useFocusOn<HTMLDivElement>(revoked)
  const backRef = useFocusOn<HTMLButtonElement>(backTo)

  return (
    <>
      <ErrorBox error={issue.error ?? revoke.error} />
      {revoked ? <Notice ref={revokedRef}>Credencial {revoked} revogada.</Notice> : null}
      <section className="panel" aria-labelledby="h-creds">
        <div className="panel-head">
          <h2 id="h-creds">Credenciais</h2>
          {isAdmin ? (
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy}
              ref={backTo && 'issue' in backTo ? backRef : undefined}
              onClick={() => {
                revoke.reset()
                setRevoked(null)
                issue.mutate(undefined, { onSuccess: setIssued })
              }}
            >
              Emitir credencial
            </button>
          ) : null}
        </div>
        {issued ? (
          <div
            className="alert alert-warn secret-box"
            role="status"
            data-testid="issued-secret"
            ref={issuedRef}
            tabIndex={-1}
          >
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
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                setIssued(null)
                setBackTo({ issue: true })
              }}
            >
              Já copiei
            </button>
          </div>
        ) : null}
        <TableWrap label="Credenciais">
          <table className="list cards" data-testid="credentials">
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
                  <td data-label="Criada em">{when(c.created_at)}</td>
                  <td data-label="Situação">
                    {c.revoked_at ? (
                      <Badge tone="bad">revogada {when(c.revoked_at)}</Badge>
                    ) : (
                      <Badge tone="ok">ativa</Badge>
                    )}
                  </td>
                  {isAdmin ? (
                    <td>
                      {c.revoked_at ? null : confirmRevoke === c.id ? (
                        <fieldset className="row" ref={confirmRef} tabIndex={-1}>
                          <legend className="sr-only">Revogar a credencial {c.client_id}?</legend>
                          <button
                            type="button"
                            className="btn btn-small btn-danger"
                            disabled={busy}
                            onClick={() => {
                              setConfirmRevoke(null)
                              issue.reset()
                              setRevoked(null)
                              revoke.mutate(c.id, { onSuccess: () => setRevoked(c.client_id) })
                            }}
                          >
                            Confirmar revogação <span className="sr-only">de {c.client_id}</span>
                          </button>
                          <button
                            type="button"
                            className="btn btn-small"
                            onClick={() => {
                              setConfirmRevoke(null)
                              setBackTo({ revoke: c.id })
                            }}
                          >
                            Cancelar
                          </button>
                        </fieldset>
                      ) : (
                        <button
                          type="button"
                          className="btn btn-small btn-danger"
                          disabled={busy}
                          ref={backTo && 'revoke' in backTo && backTo.revoke === c.id ? backRef : undefined}
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
