import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { href } from '../../../console/src/router'
import { client, errorText, unwrap } from '../api/client'
import { moment } from '../format'

/** Meus sinistros: every claim on the insured's contracts, newest first. */
export function ClaimsList() {
  useEffect(() => {
    document.title = 'Meus sinistros — Amparo'
  }, [])
  const claims = useQuery({
    queryKey: ['claims'],
    queryFn: async () => unwrap(await client.GET('/api/claims')).data,
  })
  return (
    <>
      <h1>Meus sinistros</h1>
      {claims.isPending ? <p aria-live="polite">Carregando…</p> : null}
      {claims.error ? (
        <p className="alert alert-error" role="alert">
          {errorText(claims.error)}
        </p>
      ) : null}
      {claims.data?.length === 0 ? <p>Nenhum sinistro aberto.</p> : null}
      <ul className="cards">
        {claims.data?.map((claim) => (
          <li key={claim.id} className="card">
            <h2>
              <a href={href(`/sinistros/${claim.id}`)}>
                {claim.number} — {claim.type_label}
              </a>
            </h2>
            <p className={`badge claim-${claim.status}`}>{claim.status_label}</p>
            <p className="muted">
              {claim.device.model.name} · {claim.partner.name} · aberto em {moment(claim.created_at)}
            </p>
            {claim.required_documents.length > 0 ? (
              <p>Faltam {claim.required_documents.length} documento(s).</p>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  )
}
