import { type ReactNode, type Ref, useEffect, useRef } from 'react'
import { ApiError } from './api/client'

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const lines = error.fieldErrors()
    // The server's message is already in Portuguese (Accept-Language: pt-BR); the status and the
    // code are for programs, not for the person reading.
    // With field errors the message only summarises them ("… (e mais 2 erros)"): they are shown instead.
    if (lines.length > 0) return lines.join('\n')
    return error.status === 403 ? `Sem permissão: ${error.message}` : error.message
  }
  if (error instanceof Error) return error.message
  return String(error)
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null
  return (
    <div className="alert alert-error" role="alert">
      {errorText(error)
        .split('\n')
        .map((line) => (
          <div key={line}>{line}</div>
        ))}
    </div>
  )
}

/** A result; given a ref (of `useFocusOn`), it can take the focus. */
export function Notice({ children, ref }: { children: ReactNode; ref?: Ref<HTMLDivElement> }) {
  return (
    <div className="alert alert-ok" role="status" ref={ref} tabIndex={ref ? -1 : undefined}>
      {children}
    </div>
  )
}

/**
 * A ref that takes the focus each time `key` changes to a value (a confirmation shown, a result):
 * a keyboard or screen-reader user meets it where it appears, not on the page's body.
 */
export function useFocusOn<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null)
  useEffect(() => {
    if (key) ref.current?.focus()
  }, [key])
  return ref
}

export function Loading({ what = 'Carregando…' }: { what?: string }) {
  return (
    <p className="muted" aria-live="polite">
      {what}
    </p>
  )
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  useEffect(() => {
    if (typeof children === 'string') document.title = `${children} — Amparo`
  }, [children])
  return (
    <div className="page-head">
      <h1>{children}</h1>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </div>
  )
}

export function Pager({
  page,
  lastPage,
  total,
  onPage,
}: {
  page: number
  lastPage: number
  total: number
  onPage: (page: number) => void
}) {
  return (
    <nav className="pager" aria-label="Paginação">
      <button type="button" className="btn" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ← Anterior
      </button>
      <span>
        Página {page} de {Math.max(lastPage, 1)} · {total} registro{total === 1 ? '' : 's'}
      </span>
      <button type="button" className="btn" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Próxima →
      </button>
    </nav>
  )
}

export function Badge({
  tone = 'neutral',
  children,
}: {
  tone?: 'neutral' | 'warn' | 'ok' | 'bad' | 'info'
  children: ReactNode
}) {
  return <span className={`badge badge-${tone}`}>{children}</span>
}

export function statusTone(status: string): 'neutral' | 'warn' | 'ok' | 'bad' | 'info' {
  if (['approved', 'settled', 'succeeded', 'paid', 'active', 'pago', 'protected', 'won'].includes(status))
    return 'ok'
  if (['denied', 'failed', 'canceled', 'revoked', 'disabled', 'lost'].includes(status)) return 'bad'
  if (['under_review', 'pending', 'documents_pending', 'disputed'].includes(status)) return 'warn'
  return 'neutral'
}

/** A horizontally scrolling table holder, reachable by keyboard (arrow keys scroll it). */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keyboard
    <section className="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  )
}

/** A labelled choice among a code → Portuguese label table (the codes are what the API takes). */
export function ChoiceSelect({
  label,
  choices,
  value,
  onChange,
}: {
  label: string
  choices: Record<string, string>
  value: string
  onChange: (value: string) => void
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {Object.entries(choices).map(([code, text]) => (
          <option key={code} value={code}>
            {text}
          </option>
        ))}
      </select>
    </label>
  )
}
