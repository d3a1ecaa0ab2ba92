import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { type Answer, type Input, post } from '../../api/client'
import { setTimeZone } from '../../format'
import type { Operator } from '../../session'
import { ErrorBox } from '../../ui'

type Stage = Answer<'signIn'> | Answer<'confirmTotp'>

function svgDataUrl(svg: string): string {
  const utf8 = new TextEncoder().encode(svg)
  let binary = ''
  for (const b of utf8) binary += String.fromCharCode(b)
  return `data:image/svg+xml;base64,${btoa(binary)}`
}

function secretOf(otpauthUrl: string): string | null {
  try {
    return new URL(otpauthUrl).searchParams.get('secret')
  } catch {
    return null
  }
}

/** Signing in: the password, then the TOTP code, or the enrolment QR code (and its key) first. */
export function LoginPage({ expired, onDone }: { expired: boolean; onDone: (operator: Operator) => void }) {
  const [stage, setStage] = useState<'password' | 'totp' | 'enroll'>('password')
  const [enrolment, setEnrolment] = useState<{ otpauth_url: string; qr_svg: string } | null>(null)
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [enroll, setEnroll] = useState(false)

  function advance(next: Stage) {
    if (next.stage === 'done') {
      setTimeZone(next.time_zone)
      onDone(next.operator)
    } else if (next.stage === 'enroll') {
      setEnrolment({ otpauth_url: next.otpauth_url, qr_svg: next.qr_svg })
      setStage('enroll')
    } else setStage('totp')
  }
  const signIn = useMutation({
    mutationFn: (body: Input<'signIn'>) => post<Answer<'signIn'>>('/api/session', body),
    onSuccess: advance,
  })
  const confirmCode = useMutation({
    mutationFn: (body: Input<'confirmTotp'>) => post<Answer<'confirmTotp'>>('/api/session/totp', body),
    onSuccess: advance,
    onError: () => setCode(''),
  })
  const error = signIn.error ?? confirmCode.error
  const busy = signIn.isPending || confirmCode.isPending

  function submitPassword(e: FormEvent) {
    e.preventDefault()
    signIn.mutate(enroll ? { email, password, enroll } : { email, password })
  }

  function submitCode(e: FormEvent) {
    e.preventDefault()
    confirmCode.mutate({ code: code.replace(/\s/g, '') })
  }

  const secret = enrolment ? secretOf(enrolment.otpauth_url) : null

  return (
    <main className="login-wrap">
      <div className="login-card">
        <h1>
          Amparo <span className="muted">· console de operação</span>
        </h1>
        {expired ? (
          <p className="alert alert-warn" role="status">
            Sua sessão expirou. Entre novamente.
          </p>
        ) : null}
        <ErrorBox error={error} />
        {stage === 'password' ? (
          <form onSubmit={submitPassword} className="stack">
            <h2>Entrar</h2>
            <label>
              E-mail
              <input
                type="email"
                name="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </label>
            <label>
              Senha
              <input
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </label>
            <label className="check small">
              <input
                type="checkbox"
                name="enroll"
                checked={enroll}
                onChange={(e) => setEnroll(e.target.checked)}
              />
              Ativar (ou trocar) o código de verificação em duas etapas
            </label>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? 'Entrando…' : 'Entrar'}
            </button>
          </form>
        ) : (
          <form onSubmit={submitCode} className="stack">
            <h2>{stage === 'enroll' ? 'Ativar a verificação em duas etapas' : 'Código de verificação'}</h2>
            {stage === 'enroll' && enrolment ? (
              <>
                <p>
                  Leia o QR code com um aplicativo autenticador (Google Authenticator, Authy, 1Password…) e
                  digite o código de 6 dígitos que ele mostrar.
                </p>
                <img
                  className="qr"
                  src={svgDataUrl(enrolment.qr_svg)}
                  alt="QR code para o aplicativo autenticador"
                />
                {secret ? (
                  <p className="small">
                    Sem câmera? Chave: <code className="secret">{secret}</code>
                  </p>
                ) : null}
              </>
            ) : (
              <p>Digite o código de 6 dígitos do seu aplicativo autenticador.</p>
            )}
            <label>
              Código
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
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? 'Verificando…' : 'Confirmar'}
            </button>
            <button
              type="button"
              className="btn btn-link"
              onClick={() => {
                setStage('password')
                setCode('')
                signIn.reset()
                confirmCode.reset()
              }}
            >
              Voltar
            </button>
          </form>
        )}
      </div>
    </main>
  )
}
