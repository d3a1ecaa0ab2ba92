import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { type Claim, client, errorText, unwrap, uploadDocument } from '../api/client'
import {
  bytes,
  DENIAL_REASON_LABELS,
  DOCUMENT_KIND_LABELS,
  moment,
  reais,
  SETTLEMENT_METHOD_LABELS,
} from '../format'

type Kind = keyof typeof DOCUMENT_KIND_LABELS

/** One claim: where it stands, what is missing, the adjuster's request and the decision; documents sent from here. */
export function ClaimPage({ id }: { id: number }) {
  const claim = useQuery({
    queryKey: ['claim', id],
    queryFn: async () => unwrap(await client.GET('/api/claims/{id}', { params: { path: { id } } })),
  })
  useEffect(() => {
    document.title = `Sinistro ${claim.data?.number ?? ''} — Amparo`
  }, [claim.data?.number])
  if (claim.isPending) return <p aria-live="polite">Carregando…</p>
  if (claim.error || !claim.data)
    return (
      <p className="alert alert-error" role="alert">
        {errorText(claim.error)}
      </p>
    )
  const c = claim.data
  const open = c.status === 'documents_pending' || c.status === 'under_review'
  return (
    <>
      <h1>
        Sinistro {c.number} — {c.type_label}
      </h1>
      <p className={`badge claim-${c.status}`}>{c.status_label}</p>
      <dl className="facts card">
        <dt>Aparelho</dt>
        <dd>{c.device.model.name}</dd>
        <dt>Parceiro</dt>
        <dd>{c.partner.name}</dd>
        <dt>Ocorrido em</dt>
        <dd>{moment(c.occurred_at)}</dd>
        <dt>Franquia</dt>
        <dd>{reais(c.franchise)}</dd>
      </dl>
      {c.documents_request ? <Request claim={c} request={c.documents_request} /> : null}
      <Decision claim={c} />
      {c.required_documents.length > 0 ? (
        <section className="card" aria-labelledby="faltam">
          <h2 id="faltam">Documentos que faltam</h2>
          <ul>
            {c.required_documents.map((kind) => (
              <li key={kind}>{DOCUMENT_KIND_LABELS[kind]}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {open ? <Upload claim={c} /> : null}
      <section className="card" aria-labelledby="enviados">
        <h2 id="enviados">Documentos enviados</h2>
        {c.documents.length === 0 ? <p>Nenhum ainda.</p> : null}
        <ul>
          {c.documents.map((d) => (
            <li key={d.id}>
              {DOCUMENT_KIND_LABELS[d.kind]}: {d.filename} ({bytes(d.size)})
            </li>
          ))}
        </ul>
      </section>
    </>
  )
}

/** The adjuster's latest request: highlighted while a kind it asked for is still missing, then marked answered. */
function Request({ claim, request }: { claim: Claim; request: NonNullable<Claim['documents_request']> }) {
  const waiting = request.kinds.some((kind) => claim.required_documents.includes(kind))
  return (
    <section className={waiting ? 'card notice' : 'card'} aria-labelledby="pedido">
      <h2 id="pedido">Pedido do regulador</h2>
      <p>{request.message}</p>
      <p className="muted">
        Em {moment(request.requested_at)}
        {waiting ? '' : ' — atendido: os documentos pedidos foram recebidos.'}
      </p>
    </section>
  )
}

function Decision({ claim }: { claim: Claim }) {
  const { decision, settlement } = claim
  if (!decision) return null
  return (
    <section className="card" aria-labelledby="decisao">
      <h2 id="decisao">Decisão</h2>
      {decision.outcome === 'approved' ? (
        <p>
          Aprovado ({decision.settlement_method ? SETTLEMENT_METHOD_LABELS[decision.settlement_method] : '—'}
          ): valor a receber {reais(decision.payable_amount)}.
        </p>
      ) : (
        <p>
          Negado:{' '}
          {decision.reason_code
            ? DENIAL_REASON_LABELS[decision.reason_code as keyof typeof DENIAL_REASON_LABELS]
            : '—'}
          {decision.note ? `. ${decision.note}` : ''}
        </p>
      )}
      {settlement ? <p>Concluído em {moment(settlement.settled_at)}.</p> : null}
    </section>
  )
}

interface Sending {
  name: string
  progress: number
  error: string | null
  done: boolean
}

/** Documents from the phone: the camera or files, several at once, each with its progress. */
function Upload({ claim }: { claim: Claim }) {
  const queries = useQueryClient()
  const [kind, setKind] = useState<Kind>(claim.required_documents[0] ?? 'photo')
  const [sending, setSending] = useState<Sending[]>([])
  const status = useRef<HTMLParagraphElement>(null)

  async function send(files: FileList | null) {
    if (!files || files.length === 0) return
    const list = [...files]
    setSending(list.map((f) => ({ name: f.name, progress: 0, error: null, done: false })))
    const update = (i: number, change: Partial<Sending>) =>
      setSending((all) => all.map((s, j) => (j === i ? { ...s, ...change } : s)))
    for (const [i, file] of list.entries()) {
      try {
        await uploadDocument(claim.id, kind, file, (progress) => update(i, { progress }))
        update(i, { progress: 1, done: true })
      } catch (error) {
        update(i, { error: errorText(error) })
      }
    }
    await queries.invalidateQueries({ queryKey: ['claim', claim.id] })
    await queries.invalidateQueries({ queryKey: ['claims'] })
    status.current?.focus()
  }

  return (
    <section className="card stack" aria-labelledby="enviar">
      <h2 id="enviar">Enviar documentos</h2>
      <label htmlFor="kind">Tipo de documento</label>
      <select id="kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
        {(Object.keys(DOCUMENT_KIND_LABELS) as Kind[]).map((k) => (
          <option key={k} value={k}>
            {DOCUMENT_KIND_LABELS[k]}
          </option>
        ))}
      </select>
      <p className="muted">Fotos (JPEG, PNG, WebP, HEIC) ou PDF, até 10 MB cada.</p>
      <label htmlFor="camera">Tirar foto</label>
      <input
        id="camera"
        className="file"
        type="file"
        accept="image/*"
        capture="environment"
        onChange={(e) => void send(e.target.files)}
      />
      <label htmlFor="files">Escolher arquivos</label>
      <input
        id="files"
        className="file"
        type="file"
        accept="image/jpeg,image/png,image/webp,image/heic,application/pdf"
        multiple
        onChange={(e) => void send(e.target.files)}
      />
      <ul aria-live="polite">
        {sending.map((s) => (
          <li key={s.name}>
            {s.name}:{' '}
            {s.error ? (
              <span className="bad">{s.error}</span>
            ) : s.done ? (
              'enviado'
            ) : (
              <progress max={1} value={s.progress} aria-label={`Envio de ${s.name}`} />
            )}
          </li>
        ))}
      </ul>
      <p ref={status} tabIndex={-1} className="sr-only">
        {sending.length > 0 && sending.every((s) => s.done || s.error) ? 'Envio terminado.' : ''}
      </p>
    </section>
  )
}
