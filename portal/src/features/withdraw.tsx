import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { type Contract, client, errorText, unwrap } from '../api/client'
import { reais } from '../format'

/**
 * Arrependimento on a contract card: within 7 days of contracting, a confirmation, then the
 * result. Focus moves to the confirmation and then to the result, so a screen reader follows.
 */
export function Withdraw({ contract }: { contract: Contract }) {
  const queries = useQueryClient()
  const [asking, setAsking] = useState(false)
  const confirmRef = useRef<HTMLElement>(null)
  const resultRef = useRef<HTMLDivElement>(null)
  const withdraw = useMutation({
    mutationFn: async () =>
      unwrap(
        await client.POST('/api/contracts/{kind}/{id}/withdraw', {
          params: { path: { kind: contract.kind, id: contract.id } },
        }),
      ),
    onSuccess: () => {
      setAsking(false)
      queries.invalidateQueries({ queryKey: ['contracts'] })
    },
  })
  useEffect(() => {
    if (asking) confirmRef.current?.focus()
  }, [asking])
  const settled = withdraw.isSuccess || withdraw.isError
  useEffect(() => {
    if (settled) resultRef.current?.focus()
  }, [settled])

  if (withdraw.data) {
    const refund = withdraw.data.refund_amount
    return (
      <div className="alert alert-success" role="status" tabIndex={-1} ref={resultRef}>
        Desistência registrada: {withdraw.data.status_label}.
        {refund !== null ? ` Reembolso de ${reais(refund)}.` : ''}
      </div>
    )
  }
  if (!contract.can_withdraw) return null
  const questionId = `desistir-${contract.kind}-${contract.id}`
  return (
    <>
      {withdraw.isError ? (
        <p className="alert alert-error" role="alert" tabIndex={-1} ref={resultRef}>
          {errorText(withdraw.error)}
        </p>
      ) : null}
      {asking ? (
        <section className="confirm" aria-labelledby={questionId} tabIndex={-1} ref={confirmRef}>
          <p id={questionId}>
            Desistir desta proteção? Você está dentro dos 7 dias do direito de arrependimento; a proteção
            termina agora.
          </p>
          <div className="actions">
            <button
              type="button"
              className="btn danger"
              disabled={withdraw.isPending}
              onClick={() => withdraw.mutate()}
            >
              {withdraw.isPending ? 'Enviando…' : 'Confirmar desistência'}
            </button>
            <button type="button" className="btn" onClick={() => setAsking(false)}>
              Voltar
            </button>
          </div>
        </section>
      ) : (
        <button type="button" className="btn" onClick={() => setAsking(true)}>
          Desistir (arrependimento)
        </button>
      )}
    </>
  )
}
