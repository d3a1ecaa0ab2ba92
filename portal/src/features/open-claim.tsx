import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import { navigate } from '../../../console/src/router'
import { client, errorText, unwrap } from '../api/client'

type Peril = 'robbery' | 'qualified_theft' | 'accidental_damage' | 'liquid_damage'

const today = () => new Date().toLocaleDateString('sv-SE')

/** Abrir sinistro on one contract (`subscription-12`): the partner API's fields, then its documents. */
export function OpenClaim({ contract }: { contract: string }) {
  const [kind, id] = contract.split('-') as ['subscription' | 'annual_plan', string]
  const queries = useQueryClient()
  useEffect(() => {
    document.title = 'Abrir sinistro — Amparo'
  }, [])
  const contracts = useQuery({
    queryKey: ['contracts'],
    queryFn: async () => unwrap(await client.GET('/api/contracts')).data,
  })
  const chosen = contracts.data?.find((c) => c.kind === kind && c.id === Number(id))
  const [type, setType] = useState<Peril | ''>('')
  const [date, setDate] = useState(today())
  const [time, setTime] = useState('')
  const [description, setDescription] = useState('')
  const [report, setReport] = useState('')
  const [reportDate, setReportDate] = useState('')
  const theft = type === 'robbery' || type === 'qualified_theft'

  const open = useMutation({
    mutationFn: async () =>
      unwrap(
        await client.POST('/api/claims', {
          body: {
            ...(kind === 'subscription' ? { subscription_id: Number(id) } : { annual_plan_id: Number(id) }),
            type: type as Peril,
            occurred_at: `${date} ${time || '00:00'}:00`,
            description,
            ...(theft && report
              ? { police_report: { number: report, ...(reportDate ? { issued_on: reportDate } : {}) } }
              : {}),
          },
        }),
      ),
    onSuccess: (claim) => {
      queries.invalidateQueries({ queryKey: ['contracts'] })
      queries.invalidateQueries({ queryKey: ['claims'] })
      queries.setQueryData(['claim', claim.id], claim)
      navigate(`/sinistros/${claim.id}`)
    },
  })

  const submit = (event: FormEvent) => {
    event.preventDefault()
    open.mutate()
  }

  if (contracts.isPending) return <p aria-live="polite">Carregando…</p>
  if (!chosen) return <p>Esta proteção não foi encontrada.</p>
  return (
    <>
      <h1>Abrir sinistro</h1>
      <p className="muted">
        {chosen.device.name} — {chosen.plan.name} ({chosen.partner.name})
      </p>
      <form className="card stack" onSubmit={submit}>
        <label htmlFor="type">O que aconteceu?</label>
        <select id="type" required value={type} onChange={(e) => setType(e.target.value as Peril)}>
          <option value="">Escolha…</option>
          {chosen.plan.perils.map((peril) => (
            <option key={peril.code} value={peril.code}>
              {peril.label}
            </option>
          ))}
        </select>
        <div className="row">
          <div className="stack">
            <label htmlFor="date">Data</label>
            <input
              id="date"
              type="date"
              required
              max={today()}
              value={date}
              onChange={(e) => setDate(e.target.value)}
            />
          </div>
          <div className="stack">
            <label htmlFor="time">Hora aproximada</label>
            <input id="time" type="time" required value={time} onChange={(e) => setTime(e.target.value)} />
          </div>
        </div>
        <label htmlFor="description">Conte como foi (ao menos 10 letras)</label>
        <textarea
          id="description"
          required
          minLength={10}
          maxLength={2000}
          rows={4}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        {theft ? (
          <>
            <label htmlFor="report">Número do boletim de ocorrência</label>
            <input
              id="report"
              required
              maxLength={50}
              value={report}
              onChange={(e) => setReport(e.target.value)}
            />
            <label htmlFor="report-date">Data do boletim</label>
            <input
              id="report-date"
              type="date"
              max={today()}
              value={reportDate}
              onChange={(e) => setReportDate(e.target.value)}
            />
          </>
        ) : null}
        {open.error ? (
          <p className="alert alert-error" role="alert">
            {errorText(open.error)}
          </p>
        ) : null}
        <button type="submit" className="btn primary" disabled={open.isPending}>
          {open.isPending ? 'Abrindo…' : 'Abrir sinistro'}
        </button>
      </form>
    </>
  )
}
