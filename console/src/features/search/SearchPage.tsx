import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { type Answer, get } from '../../api/client'
import { CONTRACT_KIND_LABELS, contractNames, deviceText, label } from '../../format'
import { href, navigate } from '../../router'
import { Badge, ErrorBox, Loading, PageTitle, statusTone, TableWrap } from '../../ui'
import { CustomerMessages } from './CustomerMessages'

/** `#/busca?q=`: a customer's contracts under every partner, by document, IMEI, policy or number. */
export function SearchPage({ query }: { query: URLSearchParams }) {
  const q = query.get('q') ?? ''
  const [draft, setDraft] = useState(q)
  const result = useQuery({
    queryKey: ['search', q],
    queryFn: () => get<Answer<'search'>>('/api/search', { q }),
    enabled: q !== '',
  })

  function submit(e: FormEvent) {
    e.preventDefault()
    navigate('/busca', { q: draft.trim() })
  }

  return (
    <>
      <PageTitle>Busca</PageTitle>
      <form className="searchbar" aria-label="Busca de clientes" onSubmit={submit}>
        <label htmlFor="q" className="sr-only">
          Buscar
        </label>
        <input
          id="q"
          name="q"
          type="search"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="CPF/CNPJ, nome, IMEI, número de série, apólice, sinistro, assinatura ou plano anual"
        />
        <button type="submit" className="btn btn-primary">
          Buscar
        </button>
      </form>
      <ErrorBox error={result.error} />
      {result.isLoading ? <Loading what="Buscando…" /> : null}
      {result.data && result.data.customers.length === 0 ? (
        <p className="muted" role="status">
          Nada encontrado para “{q}”.
        </p>
      ) : null}
      {result.data?.customers.map((customer) => (
        <section
          className="panel"
          key={`${customer.document_masked}:${customer.customers.map((c) => c.id).join(',')}`}
          aria-label={`Cliente ${customer.name}`}
          data-testid="customer"
        >
          <h2>
            {customer.name} <span className="muted">· {customer.document_masked}</span>
          </h2>
          <TableWrap label="Contratos do cliente">
            <table className="list cards">
              <thead>
                <tr>
                  <th scope="col">Contrato</th>
                  <th scope="col">Tipo</th>
                  <th scope="col">Parceiro</th>
                  <th scope="col">Situação</th>
                  <th scope="col">Aparelho</th>
                </tr>
              </thead>
              <tbody>
                {customer.contracts.map((c) => (
                  <tr key={`${c.kind}-${c.id}`} data-partner={c.partner.name}>
                    <th scope="row">
                      {contractNames(c, c.partner.name).policy}
                      <div className="small muted">{contractNames(c, c.partner.name).partnerRef}</div>
                    </th>
                    <td data-label="Tipo">
                      {label(CONTRACT_KIND_LABELS, c.kind)}
                      <div className="small muted">{c.plan_name}</div>
                    </td>
                    <td data-label="Parceiro">
                      <a href={href(`/parceiros/${c.partner.id}`)}>{c.partner.name}</a>
                    </td>
                    <td data-label="Situação">
                      <Badge tone={statusTone(c.status)}>{c.status_label}</Badge>
                    </td>
                    <td data-label="Aparelho">{deviceText(c.device)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <CustomerMessages customerIds={customer.customers.map((c) => c.id)} />
        </section>
      ))}
    </>
  )
}
