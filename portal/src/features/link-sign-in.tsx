import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { client, errorText, unwrap } from '../api/client'

/** Leaves the link's screen for `#/`, replacing it in the history: the token is not kept there. */
const leave = () => window.location.replace('#/')

/**
 * Entrar pelo link: the page a message's single-use link opens (`#/entrar/<token>`). Opening it
 * uses nothing; the button sends the token (a POST), so a mail scanner that follows links, even
 * one that runs the page's script, does not spend it (docs/decisions.md, Portal do segurado).
 */
export function LinkSignIn({ token }: { token: string }) {
  const queries = useQueryClient()
  useEffect(() => {
    window.document.title = 'Entrar pelo link — Amparo'
  }, [])
  const enter = useMutation({
    mutationFn: async () => unwrap(await client.POST('/api/session/link', { body: { token } })),
    onSuccess: (insured) => {
      // Whoever was signed in on this browser before, the answers now are this insured's.
      queries.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' })
      queries.setQueryData(['session'], insured)
      leave()
    },
  })

  return (
    <main className="page narrow">
      <h1>Entrar pelo link</h1>
      <div className="card stack">
        <p>Você abriu o link de acesso que enviamos por e-mail. Ele vale uma só vez, por 24 horas.</p>
        {enter.error ? (
          <p className="alert alert-error" role="alert">
            {errorText(enter.error)}
          </p>
        ) : null}
        {enter.isError ? null : (
          <button
            type="button"
            className="btn primary"
            disabled={enter.isPending}
            onClick={() => enter.mutate()}
          >
            {enter.isPending ? 'Entrando…' : 'Entrar'}
          </button>
        )}
        <button type="button" className="link" onClick={leave}>
          Entrar com um código por e-mail
        </button>
      </div>
    </main>
  )
}
