import { useQuery } from '@tanstack/react-query'
import { day, GATEWAY_MODE_LABELS, label } from '../../format'
import { href } from '../../router'
import { Badge, ErrorBox, Loading, PageTitle, TableWrap } from '../../ui'
import { partnersQuery } from './partners.queries'

/** `#/parceiros`: every partner, its credentials, plans and failing webhook endpoints counted. */
export function PartnersPage() {
  const { data, error, isLoading } = useQuery(partnersQuery)
  return (
    <>
      <PageTitle>Parceiros</PageTitle>
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {data ? (
        <TableWrap label="Parceiros">
          <table className="list cards" data-testid="partners">
            <thead>
              <tr>
                <th scope="col">Parceiro</th>
                <th scope="col">Cobrança</th>
                <th scope="col" className="num">
                  Credenciais ativas
                </th>
                <th scope="col" className="num">
                  Planos ativos
                </th>
                <th scope="col">Webhooks</th>
                <th scope="col">Desde</th>
              </tr>
            </thead>
            <tbody>
              {data.map((p) => (
                <tr key={p.id}>
                  <th scope="row">
                    <a href={href(`/parceiros/${p.id}`)}>{p.name}</a>
                  </th>
                  <td data-label="Cobrança">{label(GATEWAY_MODE_LABELS, p.gateway)}</td>
                  <td className="num" data-label="Credenciais ativas">
                    {p.active_credentials}
                  </td>
                  <td className="num" data-label="Planos ativos">
                    {p.active_plans}
                  </td>
                  <td data-label="Webhooks">
                    {p.failing_endpoints ? (
                      <Badge tone="bad">{p.failing_endpoints} com falha</Badge>
                    ) : (
                      <Badge tone="ok">em dia</Badge>
                    )}
                  </td>
                  <td data-label="Desde">{day(p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </>
  )
}
