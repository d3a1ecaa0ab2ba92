import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useEffect, useRef, useState } from 'react'
import { type Answer, type Input, post } from '../../api/client'
import type { Operator } from '../../session'
import { ErrorBox, Notice, PageTitle } from '../../ui'

const MIN_LENGTH = 12

/**
 * `#/senha`, and the only screen of a session whose one-time password is still to be replaced
 * (`forced`: the server refuses everything else until then). The current password, the new one
 * twice and, with a second factor and outside the forced change, the authenticator's code.
 */
export function PasswordPage({
  operator,
  forced = false,
  onChanged,
}: {
  operator: Operator
  forced?: boolean
  onChanged: (operator: Operator) => void
}) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [repeated, setRepeated] = useState('')
  const [code, setCode] = useState('')
  const [mismatch, setMismatch] = useState(false)
  const [done, setDone] = useState(false)
  const codeNeeded = operator.totp_enrolled && !forced
  const problemRef = useRef<HTMLDivElement>(null)
  const doneRef = useRef<HTMLDivElement>(null)
  const change = useMutation({
    mutationFn: (body: Input<'changeOwnPassword'>) =>
      post<Answer<'changeOwnPassword'>>('/api/session/password', body),
    onSuccess: (answer) => {
      setCurrent('')
      setNext('')
      setRepeated('')
      setCode('')
      setDone(true)
      onChanged(answer.operator)
    },
    onError: () => setCode(''),
  })

  // The result, or what went wrong, is where the focus goes: a screen reader hears it at once.
  useEffect(() => {
    if (done) doneRef.current?.focus()
  }, [done])
  useEffect(() => {
    if (change.error || mismatch) problemRef.current?.focus()
  }, [change.error, mismatch])

  function submit(e: FormEvent) {
    e.preventDefault()
    setDone(false)
    change.reset()
    if (next !== repeated) {
      setMismatch(true)
      return
    }
    setMismatch(false)
    const body = { current_password: current, new_password: next }
    change.mutate(codeNeeded ? { ...body, code: code.replace(/\s/g, '') } : body)
  }

  return (
    <>
      <PageTitle>{forced ? 'Troque a senha provisória' : 'Trocar senha'}</PageTitle>
      <div className="narrow">
        {forced ? (
          <p className="alert alert-warn">
            Sua senha foi criada por um administrador e vale só para esta entrada. Escolha uma senha sua para
            continuar.
          </p>
        ) : null}
        {done ? (
          <div ref={doneRef} tabIndex={-1}>
            <Notice>Senha trocada. Suas outras sessões foram encerradas.</Notice>
          </div>
        ) : null}
        <div ref={problemRef} tabIndex={-1}>
          {mismatch ? (
            <div className="alert alert-error" role="alert">
              A confirmação não é igual à nova senha.
            </div>
          ) : null}
          <ErrorBox error={change.error} />
        </div>
        <form className="stack" onSubmit={submit} aria-label="Trocar senha">
          {/* The e-mail beside the fields lets a password manager file the new password under it. */}
          <input type="hidden" name="username" autoComplete="username" value={operator.email} />
          <label>
            Senha atual
            <input
              type="password"
              name="current-password"
              autoComplete="current-password"
              required
              value={current}
              onChange={(e) => setCurrent(e.target.value)}
            />
          </label>
          <label>
            Nova senha
            <input
              type="password"
              name="new-password"
              autoComplete="new-password"
              required
              minLength={MIN_LENGTH}
              maxLength={200}
              aria-describedby="new-password-hint"
              value={next}
              onChange={(e) => setNext(e.target.value)}
            />
          </label>
          <p id="new-password-hint" className="small muted field-hint">
            De {MIN_LENGTH} a 200 caracteres, diferente da atual.
          </p>
          <label>
            Repita a nova senha
            <input
              type="password"
              name="repeat-password"
              autoComplete="new-password"
              required
              value={repeated}
              onChange={(e) => setRepeated(e.target.value)}
            />
          </label>
          {codeNeeded ? (
            <label>
              Código do aplicativo autenticador
              <input
                name="code"
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9 ]{6,7}"
                maxLength={7}
                required
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            </label>
          ) : null}
          <div>
            <button type="submit" className="btn btn-primary" disabled={change.isPending}>
              {change.isPending ? 'Trocando…' : 'Trocar senha'}
            </button>
          </div>
        </form>
      </div>
    </>
  )
}
