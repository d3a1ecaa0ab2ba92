import { type ReactElement, useCallback, useEffect, useState } from 'react'
import { ApiError, del, get, setUnauthenticatedHandler } from './api/client'
import type { Operator } from './api/types'
import { label, ROLE_LABELS } from './format'
import { href, useRoute } from './router'
import { AuditScreen } from './screens/Audit'
import { ClaimScreen } from './screens/Claim'
import { ClaimsScreen } from './screens/Claims'
import { DashboardScreen } from './screens/Dashboard'
import { LoginScreen } from './screens/Login'
import { OperatorsScreen } from './screens/Operators'
import { PartnerScreen } from './screens/Partner'
import { PartnersScreen } from './screens/Partners'
import { RefundsScreen } from './screens/Refunds'
import { SearchScreen } from './screens/Search'
import { SessionContext } from './session'
import { Loading } from './ui'

const NAV = [
  { path: '/painel', label: 'Painel', admin: false },
  { path: '/sinistros', label: 'Sinistros', admin: false },
  { path: '/busca', label: 'Busca', admin: false },
  { path: '/parceiros', label: 'Parceiros', admin: false },
  { path: '/reembolsos', label: 'Reembolsos', admin: false },
  { path: '/auditoria', label: 'Auditoria', admin: true },
  { path: '/operadores', label: 'Operadores', admin: true },
]

export function App() {
  const [operator, setOperator] = useState<Operator | null | undefined>(undefined)
  const [expired, setExpired] = useState(false)
  const route = useRoute()

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      setOperator((current) => {
        if (current) setExpired(true)
        return null
      })
    })
    get<{ operator: Operator }>('/api/session').then(
      (s) => setOperator(s.operator),
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
      <LoginScreen
        expired={expired}
        onDone={(op) => {
          setExpired(false)
          setOperator(op)
        }}
      />
    )
  }

  const [section = 'painel', id] = route.path
  let screen: ReactElement
  switch (section) {
    case 'sinistros':
      screen = id ? <ClaimScreen id={id} /> : <ClaimsScreen query={route.query} />
      break
    case 'busca':
      screen = <SearchScreen query={route.query} />
      break
    case 'parceiros':
      screen = id ? <PartnerScreen id={id} /> : <PartnersScreen />
      break
    case 'reembolsos':
      screen = <RefundsScreen query={route.query} />
      break
    case 'auditoria':
      screen = <AuditScreen query={route.query} />
      break
    case 'operadores':
      screen = <OperatorsScreen />
      break
    default:
      screen = <DashboardScreen query={route.query} />
  }

  return (
    <SessionContext.Provider value={operator}>
      <a className="skip" href="#conteudo">
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
