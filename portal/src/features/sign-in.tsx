import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useRef, useState } from 'react'
import { client, errorText, unwrap } from '../api/client'

/** Entrar: the CPF or CNPJ, then the 6-digit code the e-mail carries. */
export function SignIn() {
  const queries = useQueryClient()
  const [document, setDocument] = useState('')
  const [code, setCode] = useState('')
  const [sentTo, setSentTo] = useState<string | null>(null)
  const codeInput = useRef<HTMLInputElement>(null)
  useEffect(() => {
    window.document.title = 'Entrar — Amparo'
  }, [])
  useEffect(() => {
    if (sentTo) codeInput.current?.focus()
  }, [sentTo])

  const ask = useMutation({
    mutationFn: async () => unwrap(await client.POST('/api/session/code', { body: { document } })),
    onSuccess: (answer) => setSentTo(answer.masked_email),
  })
  const enter = useMutation({
    mutationFn: async () => unwrap(await client.POST('/api/session', { body: { document, code } })),
    onSuccess: (insured) => queries.setQueryData(['session'], insured),
  })

  const submitDocument = (event: FormEvent) => {
    event.preventDefault()
    ask.mutate()
  }
  const submitCode = (event: FormEvent) => {
    event.preventDefault()
    enter.mutate()
  }

  return (
    <main className="page narrow">
      <h1>Minhas proteções</h1>
      <p className="muted">Veja seus seguros de celular, abra um sinistro e acompanhe-o, sem senha.</p>
      {!sentTo ? (
        <form onSubmit={submitDocument} className="card stack">
          <label htmlFor="document">CPF ou CNPJ</label>
          <input
            id="document"
            inputMode="numeric"
            autoComplete="off"
            required
            value={document}
            onChange={(e) => setDocument(e.target.value)}
          />
          {ask.error ? (
            <p className="alert alert-error" role="alert">
              {errorText(ask.error)}
            </p>
          ) : null}
          <button type="submit" className="btn primary" disabled={ask.isPending}>
            {ask.isPending ? 'Enviando…' : 'Receber código por e-mail'}
          </button>
        </form>
      ) : (
        <form onSubmit={submitCode} className="card stack">
          <p role="status">
            Enviamos um código de 6 dígitos para <strong>{sentTo}</strong>. Ele vale por 10 minutos.
          </p>
          <label htmlFor="code">Código</label>
          <input
            id="code"
            ref={codeInput}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={7}
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          {enter.error ? (
            <p className="alert alert-error" role="alert">
              {errorText(enter.error)}
            </p>
          ) : null}
          <button type="submit" className="btn primary" disabled={enter.isPending}>
            {enter.isPending ? 'Entrando…' : 'Entrar'}
          </button>
          <button
            type="button"
            className="link"
            onClick={() => {
              setSentTo(null)
              setCode('')
              enter.reset()
            }}
          >
            Usar outro documento ou pedir novo código
          </button>
        </form>
      )}
    </main>
  )
}
