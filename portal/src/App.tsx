import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { href, useRoute } from '../../console/src/router'
import { ApiError, client, setUnauthenticatedHandler, unwrap } from './api/client'
import { ClaimPage } from './features/claim-page'
import { ClaimsList } from './features/claims-list'
import { Contracts } from './features/contracts'
import { LinkSignIn } from './features/link-sign-in'
import { OpenClaim } from './features/open-claim'
import { SignIn } from './features/sign-in'

/** The insured's page: signed out, the sign-in; signed in, the screen the address names. */
export function App() {
  const queries = useQueryClient()
  const route = useRoute()
  useEffect(() => setUnauthenticatedHandler(() => queries.setQueryData(['session'], null)), [queries])
  const session = useQuery({
    queryKey: ['session'],
    queryFn: async () => {
      try {
        return unwrap(await client.GET('/api/session'))
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null
        throw error
      }
    },
  })
  const [first, token] = route.path
  // A message's sign-in link, signed in or not: it may be another insured's on a shared phone.
  if (first === 'entrar' && token) return <LinkSignIn token={token} />
  if (session.isPending) return <p className="page">Carregando…</p>
  if (!session.data) return <SignIn />
  return <SignedIn name={session.data.name} />
}

function SignedIn({ name }: { name: string }) {
  const route = useRoute()
  const queries = useQueryClient()
  const main = useRef<HTMLElement>(null)
  const [first, second, third] = route.path
  // Each screen change moves the focus to its content, as a page load would.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the route is the trigger
  useEffect(() => main.current?.focus(), [route.path.join('/')])

  async function signOut() {
    await client.DELETE('/api/session')
    // The session's query stays (the page watches it); every other answer was this insured's.
    queries.setQueryData(['session'], null)
    queries.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' })
    window.location.hash = ''
  }

  let screen = <Contracts />
  if (first === 'sinistros' && second === 'novo' && third) screen = <OpenClaim contract={third} />
  else if (first === 'sinistros' && second) screen = <ClaimPage id={Number(second)} />
  else if (first === 'sinistros') screen = <ClaimsList />

  return (
    <>
      <header className="top">
        <span className="brand">Amparo</span>
        <nav aria-label="Principal">
          <a href={href('/')} aria-current={first === undefined ? 'page' : undefined}>
            Minhas proteções
          </a>
          <a href={href('/sinistros')} aria-current={first === 'sinistros' ? 'page' : undefined}>
            Meus sinistros
          </a>
          <button type="button" className="link" onClick={signOut}>
            Sair
          </button>
        </nav>
      </header>
      <main ref={main} tabIndex={-1} className="page" aria-label={`Olá, ${name.split(' ')[0]}`}>
        {screen}
      </main>
    </>
  )
}
