import { useQuery } from '@tanstack/react-query'
import { GATEWAY_MODE_LABELS, label, PLAN_KIND_LABELS } from '../../format'
import { href } from '../../router'
import { Badge, ErrorBox, Loading, PageTitle } from '../../ui'
import { PartnerCredentials } from './PartnerCredentials'
import { PartnerNotifyInsured } from './PartnerNotifyInsured'
import { PartnerWebhooks } from './PartnerWebhooks'
import { partnerQuery } from './partner.queries'

/** `#/parceiros/{id}`: the partner's gateway, credentials, messages to its customers, webhook health and plans. */
export function PartnerPage({ id }: { id: string }) {
  const { data, error, isLoading } = useQuery(partnerQuery(id))
  return (
    <>
      <p className="crumbs">
        <a href={href('/parceiros')}>← Parceiros</a>
      </p>
      <ErrorBox error={error} />
      {isLoading ? <Loading /> : null}
      {data ? (
        <>
          <PageTitle>{data.name}</PageTitle>
          <p>
            Cobrança: <strong>{label(GATEWAY_MODE_LABELS, data.gateway)}</strong>
          </p>
          <PartnerCredentials id={id} credentials={data.credentials} />
          <PartnerNotifyInsured id={id} on={data.notify_insured} />
          <PartnerWebhooks endpoints={data.webhook_endpoints} />
          <section className="panel" aria-labelledby="h-plans">
            <h2 id="h-plans">Planos</h2>
            <ul className="plain-list">
              {data.plans.map((p) => (
                <li key={p.id}>
                  {p.name} <span className="muted">· {label(PLAN_KIND_LABELS, p.kind)}</span>{' '}
                  {p.active ? <Badge tone="ok">ativo</Badge> : <Badge tone="bad">inativo</Badge>}{' '}
                  {p.is_default ? <Badge tone="info">padrão</Badge> : null}
                </li>
              ))}
            </ul>
          </section>
        </>
      ) : null}
    </>
  )
}
