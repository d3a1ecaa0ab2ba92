import { cookieSession, serverTimes } from './console.js'
import { call, check, log, type Session } from './load.js'

// `--portal`: the insured portal's API calls behind each page (README, Portal do segurado) for one
// seeded insured with several contracts and a claim, signed in with the code the portal e-mailed
// (kept in `test`: read at GET /sandbox/messages). Measured as the console's screens are.

/** Signed in at the portal on `portalPort` as the first customer of `session`'s partner. */
export async function portalBench(
  logFile: string,
  apiPort: number,
  portalPort: number,
  session: Session,
  calls: number,
) {
  const { partner, token } = session
  const [document, customerId] = [partner.documents[0] as string, partner.customerIds[0] as number]
  const send = cookieSession(portalPort)
  await send('/api/session/code', { document })
  const kept = await call(apiPort, `/sandbox/messages?customer_id=${customerId}&kind=sign_in&limit=1`, token)
  const code = /\d{6}/.exec(String(kept.json.data?.[0]?.subject))?.[0]
  check(code, `the sign-in code: ${kept.text}`)
  await send('/api/session', { document, code })

  const contracts = (await send('/api/contracts')).json.data as { certificate_url: string | null }[]
  const claims = (await send('/api/claims')).json.data as { id: number }[]
  const certificate = contracts.find((c) => c.certificate_url)?.certificate_url
  check(
    contracts.length >= 2 && claims[0] && certificate,
    'the insured should have contracts, one in force, and a claim',
  )
  log(`The insured: ${contracts.length} contracts, ${claims.length} claims`)
  const requests: [string, string][] = [
    ['Entrar: GET /api/session (every page)', '/api/session'],
    ['Minhas proteções: GET /api/contracts', '/api/contracts'],
    ['Minhas proteções: a certificate (PDF)', new URL(certificate, 'http://x').pathname],
    ['Meus sinistros: GET /api/claims', '/api/claims'],
    ['Sinistro: GET /api/claims/{id}', `/api/claims/${claims[0]?.id}`],
  ]
  await serverTimes(logFile, requests, calls, send)
}
