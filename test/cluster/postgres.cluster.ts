import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { imei } from '../helpers/documents.js'
import {
  amparoEnv,
  appName,
  attempt,
  CARD,
  ClusterDatabase,
  call,
  contract,
  cpf,
  createCustomer,
  describeTally,
  dropAgents,
  expectStatus,
  inconsistencies,
  installmentIds,
  killAll,
  log,
  logged,
  loops,
  NO_INCONSISTENCIES,
  notifyPath,
  type Partner,
  type Proc,
  parseDemo,
  preparePartner,
  type Reply,
  RequestFailure,
  range,
  record,
  runAmparo,
  staleRetries,
  startApi,
  startWorker,
  stopProc,
  subscriptionBody,
  TIME_ZONE,
  tally,
  waitReady,
  waitWorkerRound,
  withTimeout,
} from './harness.js'

// Two `amparo serve` and two `amparo worker --interval 1` processes on one fresh PostgreSQL
// database: concurrent flows split across the API processes, a database outage, a crash
// (kill -9) and a graceful shutdown (SIGTERM) under load. Every test prints its figures.

let db: ClusterDatabase
let env: Record<string, string>
let apiA: Proc
let apiB: Proc
let workers: Proc[] = []
let external: Partner
let own: Partner
const runStarted = Date.now()

const ports = () => [apiA.port, apiB.port] as const
const portOf = (i: number) => ports()[i % 2] as number
const ids = (list: number[]) => (list.length ? list.join(',') : '0')

beforeAll(async () => {
  db = await ClusterDatabase.create()
  env = amparoEnv({ DATABASE_URL: db.url, DB_POOL_MAX: '8' })
  const started = Date.now()
  await runAmparo(['migrate', '--json'], env)
  const demo = parseDemo(await runAmparo(['demo', '--json'], env))
  const workerEnv = { ...env, DB_POOL_MAX: '3' }
  workers = [startWorker('worker-1', workerEnv), startWorker('worker-2', workerEnv)]
  ;[apiA, apiB] = await Promise.all([startApi('api-a', env), startApi('api-b', env)])
  await Promise.all(workers.map((w) => waitWorkerRound(w)))
  const [ext, ownDemo] = [demo.find((p) => p.gateway === 'external'), demo.find((p) => p.gateway === 'own')]
  if (!ext || !ownDemo) throw new Error('the demo has no external or no own partner')
  external = await preparePartner([apiA.port, apiB.port], ext)
  own = await preparePartner([apiB.port, apiA.port], ownDemo)
  log(
    `database ${db.name}; api-a :${apiA.port}, api-b :${apiB.port}, 2 workers; ready in ${Date.now() - started} ms`,
  )
}, 120_000)

afterAll(async () => {
  dropAgents()
  const procs = [apiA, apiB, ...workers].filter((p): p is Proc => p?.alive())
  const exits = await Promise.all(procs.map(async (p) => ({ name: p.name, ...(await stopProc(p)) })))
  for (const e of exits)
    log(`stopped ${e.name}: code=${e.code} signal=${e.signal}${e.forced ? ' (SIGKILL)' : ''}`)
  await killAll()
  await db?.drop()
  log(`postgres cluster run: ${((Date.now() - runStarted) / 1000).toFixed(1)} s`)
  // Workers and API processes stop cleanly on SIGTERM.
  for (const e of exits) expect(e, `${e.name} exit`).toMatchObject({ code: 0, forced: false })
}, 60_000)

describe('1. concurrent flows through both API processes', () => {
  it('(a) exactly one payment per installment under concurrent notifications', async () => {
    const subs = await Promise.all(
      range(10).map(
        async (i) => expectStatus(await contract(portOf(i), external, `1a-${i}`), 201).json.id as number,
      ),
    )
    const installments = await Promise.all(subs.map((id, i) => installmentIds(portOf(i + 1), external, id)))
    const t = tally()
    // Installment 1 of every subscription, then installment 2: 10 notifications each, alternating ports.
    for (const number of [1, 2]) {
      const calls = subs.flatMap((sub, s) =>
        range(10).map(async (k) => {
          const installment = installments[s]?.[number - 1] as number
          const reply = await attempt(portOf(k), 'POST', notifyPath(sub, installment), {
            token: external.token,
          })
          record(t, reply)
          return { installment, reply }
        }),
      )
      const results = await Promise.all(calls)
      // Every answer is the same 200: the first payment's time, whoever recorded it.
      const paidAt = new Map<number, Set<string>>()
      for (const { installment, reply } of results) {
        expect(reply instanceof RequestFailure ? reply.code : reply.status).toBe(200)
        if (!(reply instanceof RequestFailure)) {
          paidAt.set(installment, (paidAt.get(installment) ?? new Set()).add(reply.json.paid_at))
        }
      }
      for (const [installment, times] of paidAt) expect(times.size, `installment ${installment}`).toBe(1)
    }

    const ledger = await db.query(
      `select installment_id, count(*) as n from payments where subscription_id in (${ids(subs)}) group by installment_id`,
    )
    const paid = await db.query(
      `select id from installments where subscription_id in (${ids(subs)}) and status = 'paid'`,
    )
    const duplicates = ledger.filter((r) => Number(r.n) !== 1)
    log(
      `1a notifications: ${describeTally(t)}; installments paid=${paid.length}, ledger rows=${ledger.length}, duplicates=${duplicates.length}`,
    )
    expect(t.sent).toBe(200)
    expect(paid).toHaveLength(20)
    expect(ledger).toHaveLength(20)
    expect(duplicates).toEqual([])
  })

  it('(b) an Idempotency-Key is honoured across processes', async () => {
    const t = tally()
    const keys = range(10).map((k) => `cluster-1b-${runStarted}-${k}`)
    const firstRound = await Promise.all(
      keys.map(async (key) => {
        const replies = await Promise.all(
          range(6).map(async (k) => {
            const reply = await attempt(portOf(k), 'POST', '/subscriptions', {
              token: external.token,
              body: {
                plan_id: external.planId,
                customer_id: external.customerId,
                model_id: external.modelId,
                metadata: { origin: key },
              },
              headers: { 'idempotency-key': key },
            })
            record(t, reply)
            return reply
          }),
        )
        return { key, replies }
      }),
    )
    const created = new Map<string, number>()
    let replayed = 0
    let inFlight = 0
    for (const { key, replies } of firstRound) {
      const answers = replies.map((r) => (r instanceof RequestFailure ? r.code : r.status))
      expect(
        answers.every((a) => a === 201 || a === 409),
        `${key}: ${answers}`,
      ).toBe(true)
      const ok = replies.filter((r): r is Reply => !(r instanceof RequestFailure) && r.status === 201)
      const originals = ok.filter((r) => r.headers['idempotent-replayed'] !== 'true')
      expect(originals, key).toHaveLength(1)
      const id = originals[0]?.json.id as number
      for (const r of ok) expect(r.json.id).toBe(id)
      created.set(key, id)
      replayed += ok.length - 1
      inFlight += answers.filter((a) => a === 409).length
    }
    // Once answered, a retry through either process replays the stored answer.
    for (const key of keys) {
      for (const port of ports()) {
        const reply = await call(port, 'POST', '/subscriptions', {
          token: external.token,
          body: {
            plan_id: external.planId,
            customer_id: external.customerId,
            model_id: external.modelId,
            metadata: { origin: key },
          },
          headers: { 'idempotency-key': key },
        })
        record(t, reply)
        expect(reply.status).toBe(201)
        expect(reply.headers['idempotent-replayed']).toBe('true')
        expect(reply.json.id).toBe(created.get(key))
        replayed += 1
      }
    }
    // The same key with another request is refused, not run.
    const mismatch = await call(apiB.port, 'POST', '/subscriptions', {
      token: external.token,
      body: {
        plan_id: external.planId,
        customer_id: external.customerId,
        model_id: external.modelId,
        metadata: { origin: 'other' },
      },
      headers: { 'idempotency-key': keys[0] as string },
    })
    expect(mismatch.status).toBe(422)

    const rows = await db.query(
      `select origin, count(*) as n from subscriptions where origin like 'cluster-1b-${runStarted}-%' group by origin`,
    )
    const duplicates = rows.filter((r) => Number(r.n) !== 1)
    log(
      `1b idempotency: ${describeTally(t)}; keys=${keys.length}, rows created=${rows.length}, replays=${replayed}, 409 in flight=${inFlight}, duplicates=${duplicates.length}`,
    )
    expect(rows).toHaveLength(keys.length)
    expect(duplicates).toEqual([])
  })

  it('(c) the two workers never charge an installment twice', async () => {
    const t = tally()
    const subs = await Promise.all(
      range(20).map(async (i) => {
        const created = await call(portOf(i), 'POST', '/subscriptions', {
          token: own.token,
          body: {
            plan_id: own.planId,
            customer_id: own.customerId,
            model_id: own.modelId,
            metadata: { origin: `1c-${i}` },
          },
        })
        record(t, created)
        expectStatus(created, 201)
        const paid = await call(portOf(i + 1), 'POST', `/subscriptions/${created.json.id}/payment`, {
          token: own.token,
          body: { creditCard: CARD },
        })
        record(t, paid)
        expect(expectStatus(paid, 200).json.status).toBe('pago')
        return created.json.id as number
      }),
    )
    for (const w of workers) expect(w.alive(), `${w.name}:\n${w.output()}`).toBe(true)
    // Installments 2 to 6 fall due today, all at once: both workers compete for them.
    const due = await db.query(
      `update installments set next_attempt_on = (now() at time zone '${TIME_ZONE}')::date
       where subscription_id in (${ids(subs)}) and number between 2 and 6 returning id`,
    )
    const started = Date.now()
    let charged = 0
    while (Date.now() - started < 30_000) {
      const [row] = await db.query(
        `select count(*) as n from installments where subscription_id in (${ids(subs)}) and number between 2 and 6 and status = 'paid'`,
      )
      charged = Number(row?.n)
      if (charged === due.length) break
      await sleep(250)
    }
    // One more round of each worker after the last charge: nothing may be charged again.
    await sleep(2500)
    const ledger = await db.query(
      `select installment_id, count(*) as n from payments
       where subscription_id in (${ids(subs)}) and route = 'recurrence' group by installment_id`,
    )
    const notDue = await db.query(
      `select id from installments where subscription_id in (${ids(subs)}) and number > 6 and status <> 'pending'`,
    )
    const duplicates = ledger.filter((r) => Number(r.n) !== 1)
    log(
      `1c recurrence: api ${describeTally(t)}; installments due=${due.length}, charged=${charged} in ${Date.now() - started} ms, recurrence ledger rows=${ledger.length}, duplicates=${duplicates.length}`,
    )
    expect(due).toHaveLength(100)
    expect(charged).toBe(100)
    expect(ledger).toHaveLength(100)
    expect(duplicates).toEqual([])
    expect(notDue).toEqual([])
    const declined = await db.query(
      `select id from payments where subscription_id in (${ids(subs)}) and outcome <> 'approved'`,
    )
    expect(declined).toEqual([])
  })

  it('(d) policy numbers are unique when annual plans are paid through both processes', async () => {
    const t = tally()
    const contractPlan = async (partner: Partner, i: number) => {
      const reply = await call(portOf(i), 'POST', '/annual-plans', {
        token: partner.token,
        body: {
          model_id: partner.modelId,
          customer_id: partner.customerId,
          // One device per plan: a device has one active protection (docs/decisions.md, Devices).
          imei: imei(9_000_000 + (partner.gateway === 'external' ? 0 : 100) + i),
          ...(partner.gateway === 'external' && { payment: { method: 'pix' } }),
        },
      })
      record(t, reply)
      return expectStatus(reply, 201).json.id as number
    }
    const externalPlans = await Promise.all(range(10).map((i) => contractPlan(external, i)))
    const ownPlans = await Promise.all(range(10).map((i) => contractPlan(own, i)))
    const policy = new Map<number, Set<string>>()
    const paidOnce = new Map<number, number>()
    const answers = await Promise.all([
      // External: 6 notifications per plan, 3 through each process; all answer the same policy number.
      ...externalPlans.flatMap((id) =>
        range(6).map(async (k) => {
          const reply = await attempt(portOf(k), 'POST', `/annual-plans/${id}/notify-payment`, {
            token: external.token,
          })
          record(t, reply)
          return { id, reply }
        }),
      ),
      // Own: 4 card payments per plan, 2 through each process; exactly one charges.
      ...ownPlans.flatMap((id) =>
        range(4).map(async (k) => {
          const reply = await attempt(portOf(k), 'POST', `/annual-plans/${id}/payment`, {
            token: own.token,
            body: { card_number: CARD.number, card_expiry: '12/30', card_cvv: '123' },
          })
          record(t, reply)
          return { id, reply }
        }),
      ),
    ])
    for (const { id, reply } of answers) {
      if (reply instanceof RequestFailure) throw reply
      expect([200, 409, 422], JSON.stringify(reply.json)).toContain(reply.status)
      if (reply.status !== 200) continue
      policy.set(id, (policy.get(id) ?? new Set()).add(reply.json.policy_number))
      paidOnce.set(id, (paidOnce.get(id) ?? 0) + 1)
    }
    for (const id of ownPlans) expect(paidOnce.get(id), `own plan ${id} paid`).toBe(1)
    for (const id of externalPlans) expect(paidOnce.get(id), `external plan ${id}`).toBe(6)
    for (const [id, numbers] of policy) expect(numbers.size, `plan ${id}`).toBe(1)

    const all = [...externalPlans, ...ownPlans]
    const rows = await db.query(
      `select id, status, policy_number from annual_plans where id in (${ids(all)})`,
    )
    const numbers = new Set(rows.map((r) => r.policy_number))
    const ledger = await db.query(
      `select annual_plan_id, count(*) as n from payments where annual_plan_id in (${ids(all)}) group by annual_plan_id`,
    )
    const duplicates = ledger.filter((r) => Number(r.n) !== 1)
    log(
      `1d annual plans: ${describeTally(t)}; plans paid=${rows.filter((r) => r.status === 'paid').length}, distinct policy numbers=${numbers.size}, ledger rows=${ledger.length}, duplicates=${duplicates.length}`,
    )
    expect(rows.every((r) => r.status === 'paid' && typeof r.policy_number === 'string')).toBe(true)
    expect(numbers.size).toBe(all.length)
    for (const r of rows) expect([...(policy.get(r.id as number) ?? [])]).toEqual([r.policy_number])
    expect(ledger).toHaveLength(all.length)
    expect(duplicates).toEqual([])
  })
})

describe('2. database outage', () => {
  it('fails fast with 503 and Retry-After, recovers without restart, writes nothing partial', async () => {
    const pids = [apiA.child.pid, apiB.child.pid]
    // Subscriptions to read, and to notify (installment 1) during the load.
    const prepared = await Promise.all(
      range(40).map(async (i) => {
        const id = expectStatus(await contract(portOf(i), external, `2-prep-${i}`), 201).json.id as number
        const [first] = await installmentIds(portOf(i + 1), external, id)
        return { id, first: first as number }
      }),
    )
    const toNotify = [...prepared]
    const notified: { id: number; first: number }[] = []
    const created: number[] = []
    const pending: (string | undefined)[] = []
    const keyed = new Map<string, number>()
    const t = tally()
    const outageTally = tally()
    const ready: { port: number; status: number | string; retryAfter?: string; at: number }[] = []
    let outageStart = Number.POSITIVE_INFINITY
    let outageEnd = Number.POSITIVE_INFINITY
    let stop = false

    const poller = (async () => {
      while (!stop) {
        await Promise.all(
          ports().map(async (port) => {
            const r = await attempt(port, 'GET', '/ready', { timeoutMs: 6000 })
            ready.push(
              r instanceof RequestFailure
                ? { port, status: r.code, at: r.startedAt }
                : { port, status: r.status, retryAfter: r.headers['retry-after'] as string, at: r.startedAt },
            )
          }),
        )
        await sleep(150)
      }
    })()

    const load = loops(6, async (loop) => {
      for (let i = 0; !stop; i++) {
        // Every kind of call goes to both processes (even loops start on one, odd on the other).
        const port = portOf(loop + i)
        const op = i % 4
        let reply: Reply | RequestFailure
        let target: { id: number; first: number } | undefined
        if (op === 0) {
          const sub = prepared[i % prepared.length] as { id: number }
          reply = await attempt(port, 'GET', `/subscriptions/${sub.id}`, { token: external.token })
        } else if (op === 1) {
          reply = await attempt(port, 'GET', '/models?per_page=5', { token: external.token })
        } else if (op === 2) {
          // A partner's write with an Idempotency-Key, retried with the same key until answered 201.
          pending[loop] ??= `cluster-2-${runStarted}-${loop}-${i}`
          const key = pending[loop] as string
          reply = await attempt(port, 'POST', '/subscriptions', {
            token: external.token,
            body: {
              plan_id: external.planId,
              customer_id: external.customerId,
              model_id: external.modelId,
              metadata: { origin: key },
            },
            headers: { 'idempotency-key': key },
          })
          if (!(reply instanceof RequestFailure) && reply.status === 201) {
            created.push(reply.json.id)
            keyed.set(key, reply.json.id)
            pending[loop] = undefined
          }
        } else {
          target = toNotify.shift()
          if (!target) reply = await attempt(port, 'GET', '/plans', { token: external.token })
          else {
            reply = await attempt(port, 'POST', notifyPath(target.id, target.first), {
              token: external.token,
            })
            if (!(reply instanceof RequestFailure) && reply.status === 200) notified.push(target)
            else toNotify.push(target) // retried later, as a partner would
          }
        }
        record(t, reply)
        if (reply.startedAt >= outageStart && reply.startedAt <= outageEnd) record(outageTally, reply)
        await sleep(10)
      }
    })

    await sleep(1000)
    outageStart = Date.now()
    let terminated = 0
    // 1.5 s of connections killed every 100 ms (the pool reconnects in between), then 1.5 s in
    // which no new connection is accepted either.
    while (Date.now() - outageStart < 1500) {
      terminated += await db.terminateConnections()
      await sleep(100)
    }
    await db.allowConnections(false)
    try {
      while (Date.now() - outageStart < 3000) {
        terminated += await db.terminateConnections()
        await sleep(100)
      }
    } finally {
      await db.allowConnections(true)
    }
    outageEnd = Date.now()

    // Recovery by themselves: no restart, the same processes answer ready again.
    const recovered = await Promise.all(
      ports().map(async (port) => {
        const deadline = Date.now() + 15_000
        while (Date.now() < deadline) {
          const r = await attempt(port, 'GET', '/ready', { timeoutMs: 3000 })
          if (!(r instanceof RequestFailure) && r.status === 200) return Date.now() - outageEnd
          await sleep(100)
        }
        return -1
      }),
    )
    await sleep(1500)
    stop = true
    await Promise.all([load, poller])
    // No process died or was restarted: the same ones answer.
    for (const p of [apiA, apiB, ...workers]) expect(p.alive(), `${p.name} died:\n${p.output()}`).toBe(true)
    expect([apiA.child.pid, apiB.child.pid]).toEqual(pids)

    // Afterwards every process writes again, and the notifications refused meanwhile go through.
    for (const port of ports())
      created.push(expectStatus(await contract(port, external, `2-after-${port}`), 201).json.id)
    for (const [k, target] of toNotify.splice(0).entries()) {
      expectStatus(
        await call(portOf(k), 'POST', notifyPath(target.id, target.first), { token: external.token }),
        200,
      )
      notified.push(target)
    }
    // The keys left unanswered by a 503 are free again: the retry runs (or replays), within seconds.
    const stuck: string[] = []
    await Promise.all(
      pending.map(async (key, k) => {
        if (!key) return
        let reply: Reply | undefined
        for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(250)) {
          reply = await call(portOf(k), 'POST', '/subscriptions', {
            token: external.token,
            body: {
              plan_id: external.planId,
              customer_id: external.customerId,
              model_id: external.modelId,
              metadata: { origin: key },
            },
            headers: { 'idempotency-key': key },
          })
          if (reply.status !== 409) break
        }
        if (reply?.status !== 201)
          return stuck.push(`${key}: ${reply?.status} ${JSON.stringify(reply?.json)}`)
        created.push(reply.json.id)
        keyed.set(key, reply.json.id)
      }),
    )
    const keyedRows = await db.query(
      `select origin, count(*) as n from subscriptions where origin like 'cluster-2-${runStarted}-%' group by origin`,
    )
    const keyedDuplicates = keyedRows.filter((r) => Number(r.n) !== 1)

    const bad = t.replies.filter(
      (r) => !(r.status < 500 || (r.status === 503 && r.headers['retry-after'] !== undefined)),
    )
    const readyDuring = ports().map((port) =>
      ready.filter((r) => r.port === port && r.at >= outageStart && r.at <= outageEnd),
    )
    const notReady = readyDuring.map(
      (list) => list.filter((r) => r.status === 503 && r.retryAfter === '5').length,
    )
    const missing = await db.query(
      `select s.id from subscriptions s where s.id in (${ids(created)}) and
       (select count(*) from installments i where i.subscription_id = s.id) <> s.installments_count`,
    )
    const found = await db.query(`select id from subscriptions where id in (${ids(created)})`)
    const unpaid = await db.query(
      `select id from installments where id in (${ids(notified.map((n) => n.first))}) and status <> 'paid'`,
    )
    const problems = await inconsistencies(db.query)
    log(
      `2 outage: ${describeTally(t)}; during the outage ${describeTally(outageTally)}; connections terminated=${terminated}; ` +
        `/ready 503 during outage a=${notReady[0]} b=${notReady[1]}; recovered after a=${recovered[0]} ms b=${recovered[1]} ms; ` +
        `subscriptions created=${created.length} (found ${found.length}), with Idempotency-Key=${keyed.size} (rows ${keyedRows.length}, duplicates=${keyedDuplicates.length}), ` +
        `notified=${notified.length}, 500s=${t.replies.filter((r) => r.status === 500).length}, partial writes=${missing.length}, keys stuck=${stuck.length}`,
    )
    for (const p of [apiA, apiB])
      log(`2 outage: ${p.name} logged (warn and above): ${JSON.stringify(logged(p, 40))}`)
    expect(stuck).toEqual([])
    expect(t.failures.map((f) => f.message)).toEqual([])
    expect(bad.map((r) => `${r.status} ${JSON.stringify(r.json)}`)).toEqual([])
    expect(t.maxMs).toBeLessThan(5000)
    expect(outageTally.byStatus.get('503') ?? 0).toBeGreaterThan(0)
    expect(notReady.every((n) => n > 0)).toBe(true)
    expect(recovered.every((ms) => ms >= 0)).toBe(true)
    expect(found).toHaveLength(created.length)
    expect(missing).toEqual([])
    expect(unpaid).toEqual([])
    expect(keyedRows).toHaveLength(keyed.size)
    expect(keyedDuplicates).toEqual([])
    expect(problems).toEqual(NO_INCONSISTENCIES)
  })
})

describe('3. crash safety on PostgreSQL', () => {
  it('kill -9 of an API process under write load loses nothing acknowledged, half-writes nothing', async () => {
    const t = tally()
    const acknowledged: { id: number; port: number }[] = []
    const notified: number[] = []
    let killedAt = Number.POSITIVE_INFINITY
    let stop = false
    const victim = apiA
    const load = loops(6, async (loop) => {
      const port = portOf(loop)
      while (!stop) {
        const created = await attempt(port, 'POST', '/subscriptions', {
          token: external.token,
          body: {
            plan_id: external.planId,
            customer_id: external.customerId,
            model_id: external.modelId,
            metadata: { origin: `3-${loop}` },
          },
        })
        record(t, created)
        if (created instanceof RequestFailure || created.status !== 201) {
          await sleep(50)
          continue
        }
        acknowledged.push({ id: created.json.id, port })
        const list = await attempt(port, 'GET', `/subscriptions/${created.json.id}/installments`, {
          token: external.token,
        })
        record(t, list)
        if (list instanceof RequestFailure || list.status !== 200) continue
        const first = list.json[0].id as number
        const paid = await attempt(port, 'POST', notifyPath(created.json.id, first), {
          token: external.token,
        })
        record(t, paid)
        if (!(paid instanceof RequestFailure) && paid.status === 200) notified.push(first)
      }
    })
    await sleep(1500)
    killedAt = Date.now()
    victim.child.kill('SIGKILL')
    const exit = await victim.exited
    await sleep(1500)
    stop = true
    await load

    const fiveXx = t.replies.filter((r) => r.status >= 500)
    const strayFailures = t.failures.filter((f) => f.port !== victim.port || f.endedAt < killedAt)
    const ackIds = acknowledged.map((a) => a.id)
    const rows = await db.query(
      `select s.id, s.installments_count, (select count(*) from installments i where i.subscription_id = s.id) as n
       from subscriptions s where s.id in (${ids(ackIds)})`,
    )
    const lost = ackIds.filter((id) => !rows.some((r) => r.id === id))
    const partial = rows.filter((r) => Number(r.n) !== Number(r.installments_count))
    const ledger = await db.query(
      `select i.id, i.status, (select count(*) from payments p where p.installment_id = i.id) as n
       from installments i where i.id in (${ids(notified)})`,
    )
    const notPaidOnce = ledger.filter((r) => r.status !== 'paid' || Number(r.n) !== 1)
    const problems = await inconsistencies(db.query)
    log(
      `3 crash (postgres): ${describeTally(t)}; killed ${victim.name} (${exit.signal}) after ${acknowledged.length} subscriptions acknowledged; ` +
        `notified=${notified.length}; failed in flight or refused on the killed process=${t.failures.length}; ` +
        `2xx kept=${acknowledged.length - lost.length}/${acknowledged.length}, lost=${lost.length}, half-written=${partial.length}, duplicates=${notPaidOnce.length}`,
    )
    expect(exit.signal).toBe('SIGKILL')
    expect(fiveXx.map((r) => `${r.port} ${r.status}`)).toEqual([])
    expect(strayFailures.map((f) => f.message)).toEqual([])
    expect(acknowledged.length).toBeGreaterThan(0)
    expect(lost).toEqual([])
    expect(partial).toEqual([])
    expect(ledger).toHaveLength(notified.length)
    expect(notPaidOnce).toEqual([])
    expect(problems).toEqual(NO_INCONSISTENCIES)

    // Restarted on the same port and database, it serves what was acknowledged before the crash.
    apiA = await startApi('api-a (restarted)', env, victim.port)
    const last = acknowledged.filter((a) => a.port === victim.port).at(-1) ?? acknowledged.at(-1)
    const again = await call(apiA.port, 'GET', `/subscriptions/${last?.id}`, { token: external.token })
    expect(again.status).toBe(200)
  })
})

describe('3b. a crash between the commit and the answer', () => {
  it('kill -9 after the commit: the retry with the key on the other process gets the original answer, one row', async () => {
    // A third API process that dies (SIGKILL) right after a contract commits, before answering.
    const doomed = await startApi('api-doomed', {
      ...env,
      AMPARO_FAULT_KILL_AFTER_COMMIT: '^POST /subscriptions$',
    })
    const key = `cluster-3b-${runStarted}`
    const body = subscriptionBody(external, key)
    const lost = await attempt(doomed.port, 'POST', '/subscriptions', {
      token: external.token,
      body,
      headers: { 'idempotency-key': key },
    })
    const exit = await doomed.exited
    const rows = await db.query(`select id from subscriptions where origin = '${key}'`)
    const retry = await call(apiB.port, 'POST', '/subscriptions', {
      token: external.token,
      body,
      headers: { 'idempotency-key': key },
    })
    const again = await call(apiA.port, 'POST', '/subscriptions', {
      token: external.token,
      body,
      headers: { 'idempotency-key': key },
    })
    const shown = await call(apiA.port, 'GET', `/subscriptions/${rows[0]?.id}`, { token: external.token })
    const after = await db.query(`select id from subscriptions where origin = '${key}'`)
    log(
      `3b crash after commit: first answer ${lost instanceof RequestFailure ? lost.code : lost.status}, ` +
        `${doomed.name} ${exit.signal}; retry ${retry.status} replayed=${retry.headers['idempotent-replayed']}; rows=${after.length}`,
    )
    expect(lost).toBeInstanceOf(RequestFailure)
    expect(exit.signal).toBe('SIGKILL')
    expect(rows).toHaveLength(1)
    expect(retry.status).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json.id).toBe(rows[0]?.id)
    // The answer as the killed process committed it (its links name its own address), the
    // subscription as it reads, and the same on every retry.
    const linked = JSON.stringify(retry.json)
    expect(linked).toContain(`:${doomed.port}/`)
    expect(JSON.parse(linked.replaceAll(`:${doomed.port}/`, `:${apiA.port}/`))).toEqual(shown.json)
    expect(again.json).toEqual(retry.json)
    expect(after).toHaveLength(1)
  })
})

describe('4. graceful shutdown', () => {
  it('SIGTERM under load: in-flight requests complete, then connections are refused, exit 0', async () => {
    const victim = apiB
    const other = apiA
    const t = tally()
    const retriedBefore = staleRetries.count
    let stop = false
    const body = (origin: string) => ({
      plan_id: external.planId,
      customer_id: external.customerId,
      model_id: external.modelId,
      metadata: { origin },
    })
    // What each failed contract of the load was (its origin is unique): to look for it afterwards.
    const failedContracts = new Map<RequestFailure, string>()
    // Each loop keeps one kept-alive connection per process, as a proxy's upstream pool does: it
    // opens a new one only when the server closed its own.
    const work = async (port: number, n: number, origin: string, agent: http.Agent) => {
      if (n % 3 === 1)
        return attempt(port, 'GET', '/subscriptions?per_page=15', { token: external.token, agent })
      if (n % 3 === 2) return attempt(port, 'GET', '/models?per_page=15', { token: own.token, agent })
      const reply = await attempt(port, 'POST', '/subscriptions', {
        token: external.token,
        body: body(origin),
        agent,
      })
      if (reply instanceof RequestFailure) failedContracts.set(reply, origin)
      return reply
    }
    const agents: http.Agent[] = []
    const load = loops(6, async (loop) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
      agents.push(agent)
      for (let i = 0; !stop; i++) {
        record(t, await work(portOf(loop + i), loop + i, `4-${runStarted}-${loop}-${i}`, agent))
        await sleep(5)
      }
    })
    await sleep(1000)

    // In-flight for sure: contracts for a customer whose row the test holds locked, so each is
    // inside its transaction, waiting, when the signal arrives (seen in pg_stat_activity). They are
    // the own-gateway partner's: a partner's contracts queue on its subscription counter, so the
    // load's (external partner) would otherwise wait behind them and count among the waiting.
    const customerId = await createCustomer(other.port, own, cpf(runStarted))
    const lock = await db.connect()
    let burst: Promise<Reply | RequestFailure>[] = []
    let waiting = 0
    let signalledAt = 0
    let drainingMs = 0
    try {
      await lock.query('begin')
      const [holder] = (await lock.query('select pg_backend_pid() as pid')).rows
      await lock.query(`select id from customers where id = ${customerId} for update`)
      burst = range(6).map((k) =>
        attempt(victim.port, 'POST', '/subscriptions', {
          token: own.token,
          body: {
            plan_id: own.planId,
            customer_id: customerId,
            model_id: own.modelId,
            metadata: { origin: `4-${runStarted}-burst-${k}` },
          },
          fresh: true,
        }),
      )
      for (
        const deadline = Date.now() + 10_000;
        waiting < burst.length && Date.now() < deadline;
        await sleep(50)
      ) {
        // Only the backends the test's lock holds up, directly or behind one it holds (the burst's
        // first contract holds the partner's counter): not the load's own passing lock waits.
        const [row] = await db.query(
          `with recursive held(pid) as (
             select pid from pg_stat_activity where ${holder.pid} = any(pg_blocking_pids(pid))
             union
             select a.pid from pg_stat_activity a join held h on h.pid = any(pg_blocking_pids(a.pid))
           )
           select count(*) as n from held join pg_stat_activity a using (pid)
           where a.application_name = '${appName(victim.name)}'`,
        )
        waiting = Number(row?.n)
      }
      signalledAt = Date.now()
      victim.child.kill('SIGTERM')
      // Closing: new connections are refused while the burst still waits for the lock.
      await sleep(500)
      drainingMs = Date.now() - signalledAt
      expect(victim.alive(), 'draining, not gone').toBe(true)
    } finally {
      await lock.query('commit').catch(() => {})
      await lock.end()
    }
    const burstResults = await Promise.all(burst)
    for (const r of burstResults) record(t, r)
    const exit = await withTimeout(victim.exited, 15_000, `${victim.name} to exit`)
    const exitedAt = Date.now()
    await sleep(1000)
    stop = true
    await load
    for (const agent of agents) agent.destroy()

    const fromVictim = [...t.replies, ...t.failures].filter((r) => r.port === victim.port)
    const answeredAfterSignal = fromVictim.filter(
      (r) => !(r instanceof RequestFailure) && r.startedAt < signalledAt && r.endedAt >= signalledAt,
    )
    const after = fromVictim.filter((r) => r.startedAt > exitedAt)
    const fiveXx = t.replies.filter((r) => r.status >= 500)
    // A new connection made as the listener closes can be reset instead of refused (it sat in the
    // kernel's accept queue): the server never read its request. When it was made is not known
    // (a request waits for the agent's socket, a stale keep-alive one is resent on a new
    // connection), so any such reset after the signal is allowed, and a contract among them must
    // not have been written.
    const resetAtTheDoor = t.failures.filter(
      (f) => f.port === victim.port && f.code === 'ECONNRESET' && !f.reused && f.startedAt >= signalledAt,
    )
    const resetOrigins = resetAtTheDoor.flatMap((f) => failedContracts.get(f) ?? [])
    const resetButWritten = await db.query(
      `select origin from subscriptions where origin in (${resetOrigins.map((o) => `'${o}'`).join(',') || "''"})`,
    )
    const notRefused = t.failures.filter(
      (f) => !resetAtTheDoor.includes(f) && (f.port !== victim.port || f.code !== 'ECONNREFUSED'),
    )
    const burstAnswered = burstResults.filter((r) => !(r instanceof RequestFailure) && r.status === 201)
    const burstRows = await db.query(`select id from subscriptions where customer_id = ${customerId}`)
    log(
      `4 graceful: ${describeTally(t)}; SIGTERM to ${victim.name} with ${waiting} requests in flight (held in their transaction ${drainingMs} ms after the signal), exit code ${exit.code} after ${exitedAt - signalledAt} ms; ` +
        `in flight answered 201=${burstAnswered.length}/${burstResults.length} (rows ${burstRows.length}), answered after the signal=${answeredAfterSignal.length}; ` +
        `refused after exit=${after.filter((r) => r instanceof RequestFailure && r.code === 'ECONNREFUSED').length}/${after.length}; ` +
        `kept-alive requests resent after the server closed their connection=${staleRetries.count - retriedBefore}; ` +
        `new connections reset as the listener closed=${resetAtTheDoor.length} (contracts among them written=${resetButWritten.length}); 5xx=${fiveXx.length}`,
    )
    expect(exit).toEqual({ code: 0, signal: null })
    expect(waiting).toBe(burst.length)
    expect(burstResults.map((r) => (r instanceof RequestFailure ? r.code : r.status))).toEqual(
      burstResults.map(() => 201),
    )
    expect(burstRows).toHaveLength(burst.length)
    expect(fiveXx.map((r) => `${r.port} ${r.status} ${JSON.stringify(r.json)}`)).toEqual([])
    // Nothing failed but new connections to the stopped process, refused.
    expect(
      notRefused.map(
        (f) =>
          `:${f.port} ${f.code} ${f.reused ? 'reused' : 'new'} ${f.startedAt - signalledAt} ms after SIGTERM`,
      ),
    ).toEqual([])
    expect(resetButWritten).toEqual([])
    expect(after.length).toBeGreaterThan(0)
    expect(after.every((r) => r instanceof RequestFailure && r.code === 'ECONNREFUSED')).toBe(true)
    // The other process did not notice.
    await waitReady(other, 5000)
  })
})
