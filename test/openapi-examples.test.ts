import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type Call,
  type Entry,
  errorCause,
  type Gateway,
  NOT_CAUSED,
  NOT_CAUSED_BY,
  type OpenApi,
  operationsOf,
  requestsFor,
  requestsOf,
  SUCCESS_NOT_CAUSED,
  setupCallsOf,
  setupOf,
} from './helpers/openapi-examples.js'
import { createTestApp } from './helpers/test-app.js'
import { freshDemo, World, WrongGateway } from './helpers/world/demo.js'

// Every example of the served document runs against the demo, as `amparo demo` loads it on an
// empty database: each operation's request examples (body and parameters) answer its documented
// success status, and each error status's example is caused from them and answers that status
// and code. Operations are read from the document, so a new route is covered as it is added.
// Limits are raised: this file logs in once an operation. The clock is the examples' day: their
// dates (a claim's loss, `occurred_at`) are within its notice period then, and after the demo's
// contract was paid (src/demo/demo-contract.ts), which is dated from the moment the demo is loaded.
// The client package is a stand-in of the client's version, named as `npm run build` names it
// (the versioned example names it too): that the real one installs is the client pack check's.
const EXAMPLES_DAY = new Date('2026-11-21T15:04:05.000Z')
const sdkDirectory = mkdtempSync(join(tmpdir(), 'amparo-examples-sdk-'))
const clientVersion = JSON.parse(readFileSync('clients/typescript/package.json', 'utf8')).version
writeFileSync(join(sdkDirectory, `amparo-client-${clientVersion}.tgz`), Buffer.from([0x1f, 0x8b, 8, 0]))
// Not useTestApp: the app is built at collection time, since the test list is read from its document.
const ctx = await createTestApp({
  clock: { now: () => EXAMPLES_DAY },
  env: { AMPARO_RATE_LIMIT: '1000000', AMPARO_LOGIN_RATE_LIMIT: '100000' },
  sdkDirectory,
})
await ctx.app.ready()
afterAll(async () => {
  await ctx.close()
  rmSync(sdkDirectory, { recursive: true, force: true })
})

const document = ctx.app.swagger() as unknown as OpenApi
const operations = operationsOf(document)

/** A demo world for `entry`: emptied, the demo loaded, the partner logged in, the setup run. */
async function worldFor(entry: Entry, gateway: Gateway, stateless = false): Promise<World> {
  const { partner, token } = await freshDemo(ctx.app, ctx.db, ctx.config, gateway)
  const world = new World(ctx.app, document, partner, token)
  for (const step of setupOf(operations, entry, { stateless })) {
    for (const call of setupCallsOf(step, gateway)) {
      const answer = await world.run(step, world.resolve(step, call))
      if (answer.statusCode !== step.successStatus)
        throw new Error(
          `setup ${step.operationId} answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`,
        )
    }
  }
  return world
}

/**
 * Runs the examples of one operation as the demo partner each is written for: as named (a
 * contracting body's), else as the external partner, or as the own-gateway one when the external
 * partner is refused with `wrong_gateway`. Failures are collected, to report them all.
 */
async function runExamples(entry: Entry): Promise<string[]> {
  const named = [...new Set(requestsOf(entry).flatMap((call) => call.gateway ?? []))]
  if (named.length > 0) {
    const failures: string[] = []
    for (const gateway of named)
      failures.push(...(await runAs(entry, gateway)).map((f) => `${gateway}: ${f}`))
    return failures
  }
  for (const gateway of ['external', 'own'] as const) {
    try {
      return await runAs(entry, gateway)
    } catch (error) {
      if (!(error instanceof WrongGateway) || gateway === 'own') throw error
    }
  }
  return []
}

async function runAs(entry: Entry, gateway: Gateway): Promise<string[]> {
  const failures: string[] = []
  const success = entry.successStatus
  let world = await worldFor(entry, gateway)
  const calls = requestsFor(entry, gateway)
  // Errors first: none of their causes changes anything, and the success may (a payment).
  for (const [status, example] of entry.errorExamples) {
    if (status in NOT_CAUSED || status in (NOT_CAUSED_BY[entry.operationId] ?? {}) || status === 429) continue
    const cause = errorCause(status, example, entry, world.resolve(entry, calls[0] as Call))
    if (typeof cause === 'string') {
      failures.push(`${status}: ${cause}`)
      continue
    }
    // A state refusal (a certificate of a contract not in force) is caused before the state changes.
    const refusing = example.code === 'invalid_state' ? await worldFor(entry, gateway, true) : world
    const answer = await refusing.send(cause, entry)
    if (refusing !== world) world = await worldFor(entry, gateway)
    const code = answer.json().code
    if (answer.statusCode !== status || code !== example.code)
      failures.push(`${status} ${example.code}: answered ${answer.statusCode} ${answer.body.slice(0, 200)}`)
    else if (status === 422) {
      const key = Object.keys(example.errors ?? {})[0] ?? ''
      if (!(key in (answer.json().errors ?? {}))) failures.push(`422: no error under ${key}: ${answer.body}`)
    }
  }
  for (const [i, call] of calls.entries()) {
    if (entry.operationId in SUCCESS_NOT_CAUSED) break
    if (i > 0) world = await worldFor(entry, gateway)
    const answer = await world.run(entry, await withCertificateCode(world.resolve(entry, call)))
    const type = String(answer.headers['content-type'] ?? '')
    if (answer.statusCode !== success)
      failures.push(
        `${call.label}: answered ${answer.statusCode}, documented ${success}: ${answer.body.slice(0, 300)}`,
      )
    // A download (a certificate's PDF, the client package) is checked by its type, not its bytes.
    else if (entry.successTypes.length > 0 && !entry.successTypes.some((t) => type.startsWith(t)))
      failures.push(`${call.label}: answered ${type}, documented ${entry.successTypes.join(' or ')}`)
  }
  // A blank query value is as if not sent (docs/decisions.md): where the document admits one, it
  // succeeds; where it does not (a required parameter), it is refused.
  if (entry.method === 'GET') {
    for (const [name, admitted] of entry.blankQuery) {
      const call = { ...(calls[0] as Call), query: { ...(calls[0] as Call).query, [name]: '' } }
      const answer = await world.send(world.resolve(entry, call), entry)
      if (answer.statusCode !== (admitted ? success : 422))
        failures.push(`blank ${name} (admitted: ${admitted}): answered ${answer.statusCode} ${answer.body}`)
    }
  }
  return failures
}

/**
 * A certificate's verification code is random (160 bits): no example can name one. The call
 * checks the code of the demo's contract in force, the one printed on its certificate.
 */
async function withCertificateCode(call: Call): Promise<Call> {
  if (call.path.code === undefined) return call
  const { certificate_code } = await ctx.db
    .selectFrom('subscriptions')
    .select('certificate_code')
    .where('certificate_code', 'is not', null)
    .executeTakeFirstOrThrow()
  return { ...call, path: { ...call.path, code: certificate_code ?? undefined } }
}

describe('every example of the OpenAPI document runs against the demo', () => {
  it('covers every operation of the document', () => {
    expect(operations.length).toBeGreaterThan(30)
  })

  for (const entry of operations) {
    it(`${entry.method} ${entry.path}`, async () => {
      expect(await runExamples(entry)).toEqual([])
    })
  }
})

describe('each 429 example answers once the limits are spent', () => {
  it('answers 429 with the documented code on every operation that documents it', async () => {
    // Its own app, with room for one request a minute per partner and one login per client.
    const limited = await createTestApp({ env: { AMPARO_RATE_LIMIT: '1', AMPARO_LOGIN_RATE_LIMIT: '1' } })
    try {
      await limited.app.ready()
      const { partner, token } = await freshDemo(limited.app, limited.db, limited.config, 'external')
      const world = new World(limited.app, document, partner, token)
      const failures: string[] = []
      const checked = operations.filter((entry) => entry.errorExamples.some(([status]) => status === 429))
      expect(checked.length).toBeGreaterThan(30)
      // The partner's one request of the minute; the login above was its client's one.
      await world.send(
        { label: 'spend', path: {}, query: {}, headers: {} },
        operations.find((e) => e.operationId === 'listSubscriptionPlans'),
      )
      for (const entry of checked) {
        const example = entry.errorExamples.find(([status]) => status === 429)?.[1]
        const call = world.resolve(entry, requestsOf(entry)[0] as Call)
        // The limit answers before the route reads anything: an id drawn at random needs no link.
        for (const name of Object.keys(call.path)) call.path[name] ??= '1'
        const answer = await world.send(call, entry)
        if (answer.statusCode !== 429 || answer.json().code !== example?.code)
          failures.push(`${entry.operationId}: answered ${answer.statusCode} ${answer.body.slice(0, 200)}`)
      }
      expect(failures).toEqual([])
    } finally {
      await limited.close()
    }
  })
})
