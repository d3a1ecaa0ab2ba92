import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useRef, useState } from 'react'
import { type Answer, type Contract, client, errorText, unwrap } from '../api/client'
import { moment, reais } from '../format'

type PixCode = Answer<'getPixCode'>

/** How often the page asks whether the code was paid: the bank app answers within seconds. */
const POLL_MS = 3000

const zoneName = (zone: string | undefined) =>
  zone === 'America/Sao_Paulo' || zone === undefined ? 'horário de Brasília' : zone

/**
 * Pagar com PIX: a code for the oldest installment payable now (or the annual plan), its QR image,
 * the copia-e-cola text with a copy button, and its status polled until it is paid or expires;
 * an expired code offers a new one.
 */
export function PixPanel({ contract, onClose }: { contract: Contract; onClose: () => void }) {
  const queries = useQueryClient()
  const id = useId()
  const regionRef = useRef<HTMLElement>(null)
  // Chosen when the panel opens: the list refreshes once it is paid.
  const [installment] = useState(() => contract.installments.find((i) => i.payable))
  const ask = useMutation({
    mutationFn: async () =>
      unwrap(
        contract.kind === 'subscription' && installment
          ? await client.POST('/api/contracts/subscription/{id}/installments/{installmentId}/pix', {
              params: { path: { id: contract.id, installmentId: installment.id } },
            })
          : await client.POST('/api/contracts/annual_plan/{id}/pix', {
              params: { path: { id: contract.id } },
            }),
      ),
  })
  const asked = useRef(false)
  const { mutate } = ask
  useEffect(() => {
    regionRef.current?.focus()
    // Once, also under StrictMode's double effects; the server answers the same pending code anyway.
    if (!asked.current) {
      asked.current = true
      mutate()
    }
  }, [mutate])

  const headingId = `${id}-title`
  const what = installment ? `Parcela ${installment.number}` : 'Plano anual'
  return (
    <section className="confirm" aria-labelledby={headingId} tabIndex={-1} ref={regionRef}>
      <h3 id={headingId}>Pagar com PIX — {what}</h3>
      {ask.isPending ? <p aria-live="polite">Gerando o código…</p> : null}
      {ask.isError ? (
        <p className="alert alert-error" role="alert">
          {errorText(ask.error)}
        </p>
      ) : null}
      {ask.data ? (
        <PixCodeView
          key={ask.data.id}
          first={ask.data}
          // The expired view's button goes away: the focus goes back to the panel, the new code in it.
          onRenew={() => mutate(undefined, { onSuccess: () => regionRef.current?.focus() })}
        />
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="btn"
          onClick={() => {
            queries.invalidateQueries({ queryKey: ['contracts'] })
            onClose()
          }}
        >
          Fechar
        </button>
      </div>
    </section>
  )
}

function PixCodeView({ first, onRenew }: { first: PixCode; onRenew: () => void }) {
  const queries = useQueryClient()
  const id = useId()
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null)
  const textRef = useRef<HTMLTextAreaElement>(null)
  const statusRef = useRef<HTMLParagraphElement>(null)
  const zone = queries.getQueryData<{ time_zone?: string }>(['session'])?.time_zone
  const code = useQuery({
    queryKey: ['pix', first.id],
    queryFn: async () =>
      unwrap(await client.GET('/api/pix-codes/{id}', { params: { path: { id: first.id } } })),
    initialData: first,
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? POLL_MS : false),
  })
  const status = code.data.status
  useEffect(() => {
    if (status === 'paid') {
      queries.invalidateQueries({ queryKey: ['contracts'] })
      statusRef.current?.focus()
    }
  }, [status, queries])

  async function copy() {
    try {
      await navigator.clipboard.writeText(code.data.qr_code)
      setCopied('yes')
    } catch {
      // No clipboard (an old browser, or permission refused): the text is selected to copy by hand.
      textRef.current?.select()
      setCopied('no')
    }
  }

  if (status === 'paid') {
    return (
      <p className="alert alert-success" role="status" tabIndex={-1} ref={statusRef}>
        Pago. Recebemos seu PIX de {reais(code.data.amount)}.
      </p>
    )
  }
  if (status !== 'pending') {
    return (
      <div className="stack">
        <p className="alert alert-error" role="status">
          Código expirado: ele não pode mais ser pago.
        </p>
        <button type="button" className="btn primary" onClick={onRenew}>
          Gerar novo código
        </button>
      </div>
    )
  }
  return (
    <div className="stack pix">
      <p>
        Valor: <strong>{reais(code.data.amount)}</strong>
      </p>
      <img
        className="qr"
        src={code.data.qr_code_png}
        width={240}
        height={240}
        alt="QR code do PIX: leia com o app do seu banco"
      />
      <label htmlFor={`${id}-text`}>PIX copia e cola</label>
      <textarea id={`${id}-text`} ref={textRef} readOnly rows={3} value={code.data.qr_code} />
      <button type="button" className="btn primary" onClick={copy}>
        Copiar código
      </button>
      <p role="status" className={copied === 'yes' ? 'alert alert-success' : 'muted'}>
        {copied === 'yes'
          ? 'Código copiado. Cole-o no app do seu banco.'
          : copied === 'no'
            ? 'Não foi possível copiar: o código está selecionado, copie-o pelo menu.'
            : ''}
      </p>
      <p>
        Válido até {moment(code.data.expires_at)} ({zoneName(zone)}).
      </p>
      <p className="muted" aria-live="polite">
        Aguardando o pagamento… esta página muda sozinha quando o banco confirmar.
      </p>
    </div>
  )
}
