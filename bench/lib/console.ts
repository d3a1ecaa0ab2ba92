import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { URI } from 'otpauth'
import { type Bench, check, f, log, markdown, percentiles, verdict } from './load.js'
import { runNode, until } from './proc.js'
import type { PartnerData } from './seed.js'

// `--console` (issue 36): the operator console's API calls behind each screen (README, Operator
// console), as an operator made by `amparo operator create` who signed in with TOTP. Calls go one at
// a time, the screens taking turns; a call's server time is its request log line's `ms`. The
// portal's (--portal) are measured the same way.

const BUDGET_MS = 300

/** The month `back` months before this one, `YYYY-MM` (UTC), as the dashboard's period takes them. */
const month = (back: number) => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back)).toISOString().slice(0, 7)
}

/** Signed in at the console on `port`, `calls` measured calls of each request. */
export async function consoleBench(
  { cli, env, logFile }: Bench,
  port: number,
  partners: PartnerData[],
  calls: number,
) {
  const [email, password] = ['bench@amparo.example', randomBytes(12).toString('hex')]
  const operator = ['operator', 'create', '--email', email, '--role', 'admin', '--password', password]
  await runNode([cli, ...operator], env)
  const send = cookieSession(port)
  const enrolling = await send('/api/session', { email, password, enroll: true })
  check(enrolling.json.stage === 'enroll', `sign-in: ${JSON.stringify(enrolling.json).slice(0, 300)}`)
  await send('/api/session/totp', { code: URI.parse(enrolling.json.otpauth_url).generate() })

  const [partner] = partners as [PartnerData]
  const queue = (await send('/api/claims')).json
  const open = (await send('/api/claims?status=open')).json
  const claim = (await send(`/api/claims/${queue.data[0]?.id}`)).json
  const requests: [string, string][] = [
    ['Painel: GET /api/dashboard (12 months)', '/api/dashboard'],
    ['Painel: 24 months', `/api/dashboard?from=${month(23)}&to=${month(0)}`],
    ['Sinistros: GET /api/claims?status=open (the queue, by deadline)', '/api/claims?status=open'],
    ['Sinistros: Todas (every claim, oldest first)', '/api/claims'],
    ['Sinistros: open, the last page', `/api/claims?status=open&page=${open.last_page}`],
    ['Sinistros: fraud signals of a partner', `/api/claims?fraud=true&partner_id=${partner.id}`],
    ['Sinistro: GET /api/claims/{id}', `/api/claims/${claim.id}`],
    ['Busca: a CPF', `/api/search?q=${partner.documents[0]}`],
    ['Busca: an IMEI', `/api/search?q=${claim.device.serial_number}`],
    ['Busca: a claim number', `/api/search?q=${claim.number}`],
    // Every seeded customer is "Cliente N da Silva": both words' ranges hold them all.
    ['Busca: a name', `/api/search?q=${encodeURIComponent('Cliente 4217 Silva')}`],
    ['Parceiros: GET /api/partners', '/api/partners'],
    ...partners.map((p): [string, string] => [`Parceiro ${p.id} (delivery health)`, `/api/partners/${p.id}`]),
    ['Reembolsos: failed', '/api/refunds?status=failed'],
    ['Auditoria: GET /api/audit', '/api/audit'],
    ['Operadores: GET /api/operators', '/api/operators'],
  ]
  await serverTimes(logFile, requests, calls, send)
}

/**
 * A browser's session on the listener at `port`: each call sends the cookie the last answer set
 * (and an Origin, as a write needs); a call that fails stops the run.
 */
export function cookieSession(port: number) {
  const origin = `http://127.0.0.1:${port}`
  let cookie = ''
  return async (path: string, body?: object) => {
    const answer = await fetch(origin + path, {
      method: body ? 'POST' : 'GET',
      headers: { origin, cookie, accept: 'application/json', 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    })
    cookie = answer.headers.getSetCookie()[0]?.split(';')[0] ?? cookie
    const text = answer.headers.get('content-type')?.includes('json') ? await answer.text() : ''
    if (!text) await answer.arrayBuffer()
    check(answer.ok, `${path}: ${answer.status} ${text.slice(0, 300)}`)
    // biome-ignore lint/suspicious/noExplicitAny: JSON of several shapes, read by the caller
    const json: any = text ? JSON.parse(text) : null
    return { json, requestId: String(answer.headers.get('x-request-id')) }
  }
}

/**
 * `calls` measured calls of each request (after one not counted), one at a time, the requests taking
 * turns; each call's server time is its request log line's `ms` (Fastify's time from the request's
 * arrival to the answer's end), against the screens' budget.
 */
export async function serverTimes(
  logFile: string,
  requests: [name: string, path: string][],
  calls: number,
  send: (path: string) => Promise<{ requestId: string }>,
) {
  log(`${requests.length} requests, ${calls} calls each (after one not counted), taking turns…`)
  const ids = requests.map(() => [] as string[])
  for (let n = 0; n <= calls; n++)
    for (const [i, [, path]] of requests.entries()) {
      const { requestId } = await send(path)
      if (n > 0) ids[i]?.push(requestId)
    }
  const times = new Map<string, number>()
  const logged = () => {
    for (const line of readFileSync(logFile, 'utf8').split('\n'))
      if (line.includes('"request completed"')) {
        const { reqId, ms } = JSON.parse(line)
        times.set(reqId, ms)
      }
    return ids.every((list) => list.every((id) => times.has(id)))
  }
  await until(logged, 10, 'the request log')
  const rows = requests.map(([name], i) => {
    const { p50, p99, max } = percentiles((ids[i] ?? []).map((id) => times.get(id) as number))
    return [name, f(p50, 1), f(p99, 1), f(max, 1), verdict(p99 <= BUDGET_MS, `p99 ≤ ${BUDGET_MS} ms`)]
  })
  log(`\n${markdown(['request', 'p50 ms', 'p99 ms', 'slowest ms', 'verdict'], rows)}`)
}
