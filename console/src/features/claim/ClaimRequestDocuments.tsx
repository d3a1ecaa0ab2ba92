import { type FormEvent, useRef, useState } from 'react'
import { DOCUMENT_KIND_LABELS, label } from '../../format'
import { ErrorBox } from '../../ui'
import { type DeskClaim, StaleClaimError, useDecision } from './claim.queries'

const MESSAGE_MIN = 10
const MESSAGE_MAX = 500

/**
 * Asks the partner for more documents on a claim under review: the kinds and a message it sees.
 * The claim then awaits them, and is under review again once each kind arrives.
 */
export function ClaimRequestDocuments({
  id,
  onDone,
  onStale,
}: {
  id: string
  onDone: (text: string) => void
  onStale: (claim: DeskClaim) => void
}) {
  const [kinds, setKinds] = useState<string[]>([])
  const [message, setMessage] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const request = useDecision(id)
  const problemRef = useRef<HTMLParagraphElement>(null)
  const length = message.trim().length

  async function submit(e: FormEvent) {
    e.preventDefault()
    request.reset()
    const missing =
      kinds.length === 0
        ? 'Escolha ao menos um documento.'
        : length < MESSAGE_MIN || length > MESSAGE_MAX
          ? `A mensagem deve ter de ${MESSAGE_MIN} a ${MESSAGE_MAX} caracteres.`
          : null
    setProblem(missing)
    if (missing) {
      problemRef.current?.focus()
      return
    }
    try {
      await request.mutateAsync({ action: 'request-documents', body: { kinds, message } })
      onDone(`Documentos solicitados: ${kinds.map((k) => label(DOCUMENT_KIND_LABELS, k)).join(', ')}.`)
    } catch (error) {
      if (error instanceof StaleClaimError) onStale(error.claim)
    }
  }

  const toggle = (kind: string, on: boolean) =>
    setKinds((current) => (on ? [...current, kind] : current.filter((k) => k !== kind)))
  return (
    <section className="panel" aria-labelledby="h-request">
      <h2 id="h-request">Pedir documentos</h2>
      <ErrorBox error={request.error instanceof StaleClaimError ? null : request.error} />
      <form className="stack" onSubmit={submit} noValidate>
        <fieldset className="stack plain checks" disabled={request.isPending}>
          <legend>Documentos</legend>
          {Object.entries(DOCUMENT_KIND_LABELS).map(([kind, text]) => (
            <label key={kind} className="check">
              <input
                type="checkbox"
                name="kinds"
                value={kind}
                checked={kinds.includes(kind)}
                onChange={(e) => toggle(kind, e.target.checked)}
              />
              {text}
            </label>
          ))}
        </fieldset>
        <label>
          Mensagem para o parceiro
          <textarea
            name="message"
            rows={3}
            maxLength={MESSAGE_MAX}
            value={message}
            aria-describedby="request-hint"
            onChange={(e) => setMessage(e.target.value)}
          />
        </label>
        <p id="request-hint" className="small muted">
          {length}/{MESSAGE_MAX} caracteres (mínimo {MESSAGE_MIN}). O sinistro volta a aguardar documentos.
        </p>
        {problem ? (
          <p ref={problemRef} tabIndex={-1} className="text-bad" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" className="btn" disabled={request.isPending}>
          {request.isPending ? 'Enviando…' : 'Pedir documentos'}
        </button>
      </form>
    </section>
  )
}
