import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { type Contract, client, errorText, unwrap } from '../api/client'
import { day, reais } from '../format'

type Mode = 'replace' | 'pay'

const DONE: Record<Mode, string> = {
  replace: 'Cartão trocado: as próximas parcelas serão cobradas nele.',
  pay: 'Pagamento aprovado. A parcela está paga.',
}

/**
 * A card form on a contract: replacing the card kept for the recurrence, or paying what is due
 * (the card is then kept too). The card goes to the server once and is never kept on the page.
 */
export function CardForm({
  contract,
  mode,
  title,
  onClose,
}: {
  contract: Contract
  mode: Mode
  /** The words of the button that opened it (kept once paid, when the button's words change). */
  title: string
  onClose: () => void
}) {
  const queries = useQueryClient()
  const [heading] = useState(title)
  const id = useId()
  const regionRef = useRef<HTMLElement>(null)
  const resultRef = useRef<HTMLParagraphElement>(null)
  const send = useMutation({
    mutationFn: async (creditCard: { number: string; expiry: string; cvv: string; holder?: string }) => {
      const options = { params: { path: { id: contract.id } }, body: { creditCard } }
      return unwrap(
        mode === 'replace'
          ? await client.PUT('/api/contracts/subscription/{id}/card', options)
          : await client.POST('/api/contracts/subscription/{id}/payment', options),
      )
    },
    onSuccess: () => queries.invalidateQueries({ queryKey: ['contracts'] }),
  })
  useEffect(() => regionRef.current?.focus(), [])
  const settled = send.isSuccess || send.isError
  useEffect(() => {
    if (settled) resultRef.current?.focus()
  }, [settled])

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const field = (name: string) => String(form.get(name) ?? '').trim()
    const holder = field('holder')
    send.mutate({
      number: field('number'),
      expiry: field('expiry'),
      cvv: field('cvv'),
      ...(holder ? { holder } : {}),
    })
  }

  const due = contract.installments.filter((i) => i.payable)
  const headingId = `${id}-title`
  return (
    <section className="confirm" aria-labelledby={headingId} tabIndex={-1} ref={regionRef}>
      <h3 id={headingId}>{heading}</h3>
      {send.isSuccess ? (
        <>
          <p className="alert alert-success" role="status" tabIndex={-1} ref={resultRef}>
            {DONE[mode]}
          </p>
          <div className="actions">
            <button type="button" className="btn" onClick={onClose}>
              Fechar
            </button>
          </div>
        </>
      ) : (
        <form className="stack" onSubmit={submit}>
          {mode === 'pay' && due.length > 0 ? (
            <ul>
              {due.map((i) => (
                <li key={i.number}>
                  Parcela {i.number}: {reais(i.amount)}, vencimento {day(i.due_date)}
                </li>
              ))}
            </ul>
          ) : null}
          <label htmlFor={`${id}-number`}>Número do cartão</label>
          <input
            id={`${id}-number`}
            name="number"
            inputMode="numeric"
            autoComplete="cc-number"
            maxLength={23}
            required
          />
          <div className="row">
            <div className="stack">
              <label htmlFor={`${id}-expiry`}>Validade (MM/AA)</label>
              <input
                id={`${id}-expiry`}
                name="expiry"
                inputMode="numeric"
                autoComplete="cc-exp"
                placeholder="MM/AA"
                maxLength={5}
                required
              />
            </div>
            <div className="stack">
              <label htmlFor={`${id}-cvv`}>Código de segurança</label>
              <input
                id={`${id}-cvv`}
                name="cvv"
                inputMode="numeric"
                autoComplete="cc-csc"
                maxLength={4}
                required
              />
            </div>
          </div>
          <label htmlFor={`${id}-holder`}>Nome impresso no cartão</label>
          <input id={`${id}-holder`} name="holder" autoComplete="cc-name" maxLength={100} />
          {send.isError ? (
            <p className="alert alert-error" role="alert" tabIndex={-1} ref={resultRef}>
              {errorText(send.error)}
            </p>
          ) : null}
          <div className="actions">
            <button type="submit" className="btn primary" disabled={send.isPending}>
              {send.isPending ? 'Enviando…' : mode === 'replace' ? 'Salvar cartão' : 'Pagar'}
            </button>
            <button type="button" className="btn" onClick={onClose}>
              Voltar
            </button>
          </div>
        </form>
      )}
    </section>
  )
}
