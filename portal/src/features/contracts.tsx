import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { href } from '../../../console/src/router'
import { type Contract, client, errorText, unwrap } from '../api/client'
import { day, reais } from '../format'
import { Paying } from './paying'
import { Withdraw } from './withdraw'

/** Minhas proteções: every contract of the insured, under every partner. */
export function Contracts() {
  useEffect(() => {
    document.title = 'Minhas proteções — Amparo'
  }, [])
  const contracts = useQuery({
    queryKey: ['contracts'],
    queryFn: async () => unwrap(await client.GET('/api/contracts')).data,
  })
  return (
    <>
      <h1>Minhas proteções</h1>
      {contracts.isPending ? <p aria-live="polite">Carregando…</p> : null}
      {contracts.error ? (
        <p className="alert alert-error" role="alert">
          {errorText(contracts.error)}
        </p>
      ) : null}
      {contracts.data?.length === 0 ? <p>Nenhuma proteção neste documento.</p> : null}
      <ul className="cards">
        {contracts.data?.map((contract) => (
          <li key={`${contract.kind}-${contract.id}`}>
            <ContractCard contract={contract} />
          </li>
        ))}
      </ul>
    </>
  )
}

function ContractCard({ contract }: { contract: Contract }) {
  const title = `${contract.device.name} — ${contract.plan.name}`
  const headingId = `contrato-${contract.kind}-${contract.id}`
  return (
    <article className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p className={`badge status-${contract.status}`}>{contract.status_label}</p>
      <dl className="facts">
        <dt>Parceiro</dt>
        <dd>
          {contract.partner.name}
          {contract.store ? ` · ${contract.store}` : ''}
        </dd>
        <dt>Apólice</dt>
        <dd>{contract.policy_number ?? '—'}</dd>
        <dt>Aparelho</dt>
        <dd>
          {contract.device.name}
          {contract.device.serial_number ? ` (${contract.device.serial_number})` : ''}
        </dd>
        <dt>Vigência</dt>
        <dd>
          {day(contract.coverage.starts_on)} a {day(contract.coverage.ends_on)}
        </dd>
        <dt>Coberturas</dt>
        <dd>{contract.plan.perils.map((p) => p.label).join(', ')}</dd>
        <dt>Limite (LMI)</dt>
        <dd>{reais(contract.lmi)}</dd>
      </dl>
      <p className="next">{contract.next_step_text}</p>
      <Paying contract={contract} />
      {contract.installments.length > 0 ? (
        <details>
          <summary>Parcelas ({contract.installments.length})</summary>
          <table>
            <caption className="sr-only">Parcelas de {title}</caption>
            <thead>
              <tr>
                <th scope="col">Nº</th>
                <th scope="col">Vencimento</th>
                <th scope="col">Valor</th>
                <th scope="col">Situação</th>
              </tr>
            </thead>
            <tbody>
              {contract.installments.map((i) => (
                <tr key={i.number}>
                  <td>{i.number}</td>
                  <td>{day(i.due_date)}</td>
                  <td>{reais(i.amount)}</td>
                  <td>{i.overdue ? `${i.status_label} (em atraso)` : i.status_label}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
      <div className="actions">
        {contract.can_claim ? (
          <a className="btn primary" href={href(`/sinistros/novo/${contract.kind}-${contract.id}`)}>
            Abrir sinistro
          </a>
        ) : null}
        {contract.open_claim_id !== null ? (
          <a className="btn" href={href(`/sinistros/${contract.open_claim_id}`)}>
            Ver sinistro
          </a>
        ) : null}
        {contract.certificate_url ? (
          <a className="btn" href={contract.certificate_url} target="_blank" rel="noopener">
            Certificado (PDF)
          </a>
        ) : null}
      </div>
      <Withdraw contract={contract} />
    </article>
  )
}
