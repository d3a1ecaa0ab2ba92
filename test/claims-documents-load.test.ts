import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { documentForm, insertTestClaim, png } from './helpers/claim-documents.js'
import { useTestApp } from './helpers/test-app.js'
import {
  bearer,
  createCustomer,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  TOTAL_12X,
} from './helpers/world.js'

// Uploads do not stall other partners (docs/decisions.md, Claims: document storage): while one
// partner sends 20 files of 10 MiB at once to a listening server, another's reads keep answering.

const UPLOADS = 20
const FILE_BYTES = 10 * 1024 * 1024
/**
 * The p99 a read may take meanwhile. The service's budget is 100 ms on a machine of its own; on a
 * shared 2-core machine parsing 200 MiB of forms alone takes reads' p99 to a few hundred ms, so the
 * bound is a regression guard: a read waiting behind uploads' transactions took 3–8 s.
 */
const P99_BOUND_MS = 1500

let port: number
let uploader: string
let reader: string
let claims: number[]
let readerClaim: number

const ctx = useTestApp({
  onDisk: true,
  env: {
    AMPARO_RATE_LIMIT: '1000000',
    AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR: '1000',
    AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY: '100000',
  },
})

beforeAll(async () => {
  const catalog = await seedCatalog(ctx.db)
  const contract = async () => {
    const mine = await partnerWithToken(ctx.app, ctx.db)
    const plan = await seedPlan(ctx.db, mine.partner.id, TOTAL_12X)
    const customer = await createCustomer(ctx.app, mine.token)
    const contracted = await ctx.app.inject({
      method: 'POST',
      url: '/subscriptions',
      headers: bearer(mine.token),
      payload: { plan_id: plan.id, customer_id: customer.id, model_id: catalog.model('iPhone 16 Pro').id },
    })
    expect(contracted.statusCode, contracted.body).toBe(201)
    const subscription = await ctx.db
      .selectFrom('subscriptions')
      .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
      .where('id', '=', contracted.json().id)
      .executeTakeFirstOrThrow()
    return { token: mine.token, subscription }
  }
  const a = await contract()
  const b = await contract()
  uploader = a.token
  reader = b.token
  claims = []
  for (let i = 0; i < UPLOADS; i++) claims.push(await insertTestClaim(ctx.db, a.subscription, 'robbery'))
  readerClaim = await insertTestClaim(ctx.db, b.subscription, 'robbery')
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  port = (ctx.app.server.address() as { port: number }).port
})

/** Sends one request on a fresh connection; its status and how long its answer took (ms). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
    })
    req.on('error', reject)
    req.end()
  })
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/**
 * The uploads, sent by a process of their own so that sending 200 MiB does not weigh on the event
 * loop whose reads are measured; resolves to their statuses.
 */
function uploadFrom(other: { payload: Buffer; headers: Record<string, string> }): Promise<number[]> {
  const script = `
    const { request } = require('node:http')
    const { port, paths, headers } = JSON.parse(process.argv[1])
    const chunks = []
    process.stdin.on('data', (c) => chunks.push(c)).on('end', async () => {
      const body = Buffer.concat(chunks)
      const send = (path) => new Promise((resolve) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path, agent: false,
          headers: { ...headers, 'content-length': body.length } }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode))
        })
        req.on('error', () => resolve(0))
        req.end(body)
      })
      process.stdout.write(JSON.stringify(await Promise.all(paths.map(send))))
    })`
  const paths = claims.map((id) => `/claims/${id}/documents`)
  const headers = { ...bearer(uploader), ...other.headers }
  const child = spawn(process.execPath, ['-e', script, JSON.stringify({ port, paths, headers })])
  let out = ''
  child.stdout.on('data', (c) => {
    out += c
  })
  child.stdin.end(other.payload)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', () => resolve(JSON.parse(out || '[]')))
  })
}

describe('20 parallel uploads of 10 MiB', () => {
  it('leave another partner’s reads answering within the bound (p99)', async () => {
    const bytes = Buffer.concat([png(), Buffer.alloc(FILE_BYTES - png().length, 7)])
    const uploads = uploadFrom(documentForm('photo', bytes, 'big.png'))
    let uploading = true
    void uploads.finally(() => {
      uploading = false
    })
    const reads: number[] = []
    while (uploading || reads.length < 20) {
      const read = await send('GET', `/claims/${readerClaim}`, bearer(reader))
      expect(read.status).toBe(200)
      reads.push(read.ms)
    }
    const answers = await uploads
    expect(answers).toEqual(Array(UPLOADS).fill(201))
    const p99 = percentile(reads, 99)
    // The figure for docs/benchmarks.md (the budget is 100 ms).
    console.info(
      `reads during ${UPLOADS} uploads: n=${reads.length} p50=${percentile(reads, 50).toFixed(1)} ms p99=${p99.toFixed(1)} ms max=${Math.max(...reads).toFixed(1)} ms`,
    )
    expect(p99).toBeLessThanOrEqual(P99_BOUND_MS)
  }, 120_000)
})
