import { type ReactElement, useCallback, useEffect, useState } from 'react'
import { type Answer, ApiError, del, get, setUnauthenticatedHandler } from './api/client'
import { queryClient } from './api/query-client'
import { AuditPage } from './features/audit/AuditPage'
import { ClaimPage } from './features/claim/ClaimPage'
import { ClaimsPage } from './features/claims/ClaimsPage'
import { DashboardPage } from './features/dashboard/DashboardPage'
import { DisputesPage } from './features/disputes/DisputesPage'
import { LoginPage } from './features/login/LoginPage'
import { OperatorsPage } from './features/operators/OperatorsPage'
import { PartnerPage } from './features/partner/PartnerPage'
import { PartnersPage } from './features/partners/PartnersPage'
import { PasswordPage } from './features/password/PasswordPage'
import { RefundsPage } from './features/refunds/RefundsPage'
import { SearchPage } from './features/search/SearchPage'
import { label, ROLE_LABELS, setTimeZone } from './format'
import { href, useRoute } from './router'
import { type Operator, SessionContext } from './session'
import { useSearchKey } from './shortcuts'
import { Loading } from './ui'

const NAV = [
  { path: '/painel', label: 'Painel', admin: false },
  { path: '/sinistros', label: 'Sinistros', admin: false },
  { path: '/busca', label: 'Busca', admin: false },
  { path: '/parceiros', label: 'Parceiros', admin: false },
  { path: '/reembolsos', label: 'Reembolsos', admin: false },
  { path: '/disputas', label: 'Disputas', admin: false },
  { path: '/auditoria', label: 'Auditoria', admin: true },
  { path: '/operadores', label: 'Operadores', admin: true },
  { path: '/senha', label: 'Minha senha', admin: false },
]

export function App() {
  const [operator, setOperator] = useState<Operator | null | undefined>(undefined)
  const [expired, setExpired] = useState(false)
  const route = useRoute()
  useSearchKey(Boolean(operator))

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      // What the cache holds was read for the operator who signed out: the next one reads afresh.
      queryClient.clear()
      setOperator((current) => {
        if (current) setExpired(true)
        return null
      })
    })
    get<Answer<'getSession'>>('/api/session').then(
      (s) => {
        setTimeZone(s.time_zone)
        setOperator(s.operator)
      },
      (e) => {
        if (!(e instanceof ApiError) || e.status !== 401) console.error(e)
        setOperator(null)
      },
    )
  }, [])

  const logout = useCallback(async () => {
    try {
      await del('/api/session')
    } finally {
      queryClient.clear()
      setExpired(false)
      setOperator(null)
      window.location.hash = '#/'
    }
  }, [])

  if (operator === undefined) {
    return (
      <main className="login-wrap">
        <Loading />
      </main>
    )
  }
  if (operator === null) {
    return (
      <LoginPage
        expired={expired}
        onDone={(op) => {
          setExpired(false)
          setOperator(op)
        }}
      />
    )
  }

  // A one-time password opens nothing but its change (the server refuses the rest): no menu, one screen.
  if (operator.password_change_required) {
    return (
      <SessionContext.Provider value={operator}>
        <div className="shell">
          <header className="topbar">
            <span className="brand">
              Amparo <span>console</span>
            </span>
            <div className="who">
              <span className="who-email">{operator.email}</span>
              <button type="button" className="btn btn-small" onClick={logout}>
                Sair
              </button>
            </div>
          </header>
          <main id="conteudo" className="content content-alone" tabIndex={-1}>
            <PasswordPage operator={operator} forced onChanged={setOperator} />
          </main>
        </div>
      </SessionContext.Provider>
    )
  }

  const [section = 'painel', id] = route.path
  let screen: ReactElement
  switch (section) {
    case 'sinistros':
      screen = id ? <ClaimPage id={id} /> : <ClaimsPage query={route.query} />
      break
    case 'busca':
      screen = <SearchPage query={route.query} />
      break
    case 'parceiros':
      screen = id ? <PartnerPage id={id} /> : <PartnersPage />
      break
    case 'reembolsos':
      screen = <RefundsPage query={route.query} />
      break
    case 'disputas':
      screen = <DisputesPage query={route.query} />
      break
    case 'auditoria':
      screen = <AuditPage query={route.query} />
      break
    case 'operadores':
      screen = <OperatorsPage />
      break
    case 'senha':
      screen = <PasswordPage operator={operator} onChanged={setOperator} />
      break
    default:
      screen = <DashboardPage query={route.query} />
  }

  return (
    <SessionContext.Provider value={operator}>
      {/* The hash is the router's: following #conteudo would leave the screen, so focus the content instead. */}
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to the content, which the router's hash cannot name. */}
      <a
        className="skip"
        href="#conteudo"
        onClick={(event) => {
          event.preventDefault()
          document.getElementById('conteudo')?.focus()
        }}
      >
        Pular para o conteúdo
      </a>
      <div className="shell">
        <header className="topbar">
          <a className="brand" href="#/painel">
            Amparo <span>console</span>
          </a>
          <div className="who">
            <span className="who-email">{operator.email}</span>
            <span className="badge badge-info">{label(ROLE_LABELS, operator.role)}</span>
            <button type="button" className="btn btn-small" onClick={logout}>
              Sair
            </button>
          </div>
        </header>
        <nav className="sidenav" aria-label="Seções">
          <ul>
            {NAV.filter((n) => !n.admin || operator.role === 'admin').map((n) => (
              <li key={n.path}>
                <a href={href(n.path)} aria-current={`/${section}` === n.path ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="conteudo" className="content" tabIndex={-1}>
          {screen}
        </main>
      </div>
    </SessionContext.Provider>
  )
}
