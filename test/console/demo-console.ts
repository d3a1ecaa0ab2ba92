import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { buildConsoleApp } from '../../src/console/app.js'
import { createDb } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { loadDemo } from '../../src/demo/demo.js'
import { hashPassword } from '../../src/modules/operators/password-hash.js'
import { formatTimestamp } from '../../src/shared/time.js'
import { deliverWebhooksOnce } from '../../src/worker/webhooks.job.js'
import { customerBody, uniqueImei } from '../helpers/bodies.js'
import { documentForm, pdf, png } from '../helpers/claim-documents.js'
import { consoleRoot } from './built.js'

const DAY = 86_400_000
type Json = Record<string, unknown>

/**
 * The console on the demo data (`amparo demo` on a fresh in-memory SQLite database), with what its
 * screens show: contracts paid through the partner API, claims with a photo and an invoice, the
 * same phone under both demo partners, a refund the gateway gave up on, the failed deliveries of the
 * demo's failing webhook endpoint, and an administrator.
 * For `npm run console:screenshots`.
 */
export async function startDemoConsole() {
  const config = loadConfig({
    AMPARO_ENV: 'test',
    AMPARO_SQLITE_FILE: ':memory:',
    LOG_LEVEL: 'silent',
    AMPARO_LOGIN_RATE_LIMIT: '100000',
    AMPARO_RATE_LIMIT: '100000',
  })
  const db = createDb(config.database)
  await migrateToLatest(db)
  let now = Date.now()
  const clock = { now: () => new Date(now) }
  const app = await buildApp({ config, db, clock, gateway: null, logger: false })
  const { partners } = await loadDemo(db, config, new Date(now - 60 * DAY).toISOString())

  async function call(token: string, method: string, url: string, payload?: unknown, headers = {}) {
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...headers },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    })
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`)
    return response.json()
  }
  async function tokenOf(p: { client_id: string; client_secret: string }) {
    const r = await app.inject({ method: 'POST', url: '/auth/login', payload: p })
    return r.json().access_token as string
  }
  const [first, second] = partners
  if (!first || !second) throw new Error('the demo has two partners')

  now -= 40 * DAY
  let t1 = await tokenOf(first)
  const t2 = await tokenOf(second)
  const plans1 = (await call(t1, 'GET', '/plans')) as { data?: Json[] } | Json[]
  const list = (x: { data?: Json[] } | Json[]) => (Array.isArray(x) ? x : (x.data ?? []))
  const subscriptionPlan = list(plans1)[0] as { id: number }
  const models = list(await call(t1, 'GET', '/models')) as { id: number }[]
  const modelId = models[0]?.id

  const shared = customerBody()
  const imei = uniqueImei()
  // The second partner's annual plan on the phone, canceled: its refund failed.
  const atSecond = await call(t2, 'POST', '/customers', shared)
  const plan = await call(t2, 'POST', '/annual-plans', {
    model_id: modelId,
    customer_id: atSecond.id,
    imei,
    ...(second.gateway === 'external' && { payment: { method: 'pix' } }),
  })
  if (second.gateway === 'external') await call(t2, 'POST', `/annual-plans/${plan.id}/notify-payment`)
  const subscriptions: number[] = []
  let searchable = imei
  try {
    const { protocol } = await call(t2, 'PUT', `/annual-plans/${plan.id}/cancellation`)
    await call(t2, 'POST', `/annual-plans/${plan.id}/cancellation/${protocol}`)
    const at = new Date(now).toISOString()
    const failed = {
      status: 'failed' as const,
      attempts: 9,
      next_attempt_at: at,
      give_up_at: at,
      locked_until: null,
      last_error: 'gateway_unavailable',
    }
    const row = await db
      .selectFrom('annual_plan_refunds')
      .select('id')
      .where('annual_plan_id', '=', plan.id)
      .executeTakeFirst()
    if (row)
      await retryingTransaction(db, (trx) =>
        trx.updateTable('annual_plan_refunds').set(failed).where('id', '=', row.id).execute(),
      )
    else
      await retryingTransaction(db, (trx) =>
        trx
          .insertInto('annual_plan_refunds')
          .values({
            ...failed,
            annual_plan_id: plan.id,
            partner_id: second.id,
            amount: 41_250,
            payment_reference: 'pi_demo',
            gateway_refund_id: null,
            refunded_at: null,
            created_at: at,
          })
          .execute(),
      )
  } catch (error) {
    console.warn(`(no failed refund in the demo: ${(error as Error).message})`)
    searchable = imei
  }

  // The first partner's subscriptions, the shared phone's among them, paid 40 days ago.
  for (const [i, body] of [shared, customerBody(), customerBody()].entries()) {
    const customer = await call(t1, 'POST', '/customers', body)
    const sub = await call(t1, 'POST', '/subscriptions', {
      plan_id: subscriptionPlan.id,
      customer_id: customer.id,
      model_id: modelId,
      serial_number: i === 0 ? imei : uniqueImei(),
    })
    const [installment] = await call(t1, 'GET', `/subscriptions/${sub.id}/installments`)
    await call(t1, 'POST', `/subscriptions/${sub.id}/installments/${installment.id}/notify-payment`)
    subscriptions.push(sub.id)
  }

  now += 39 * DAY
  t1 = await tokenOf(first)
  const claims: number[] = []
  for (const [i, subscriptionId] of subscriptions.entries()) {
    const claim = await call(t1, 'POST', '/claims', {
      subscription_id: subscriptionId,
      type: 'accidental_damage',
      occurred_at: formatTimestamp(new Date(now - DAY / 2).toISOString(), 'America/Sao_Paulo'),
      description: 'A tela quebrou após uma queda na calçada.',
    })
    claims.push(claim.id)
    if (i === 2) continue
    for (const [kind, bytes, name, type] of [
      ['photo', png(0x60), 'tela.png', 'image/png'],
      ['invoice', pdf('Nota fiscal'), 'nota.pdf', 'application/pdf'],
    ] as const) {
      const upload = documentForm(kind, bytes, name, type)
      await call(t1, 'POST', `/claims/${claim.id}/documents`, upload.payload, upload.headers)
    }
  }
  now += DAY
  // The worker's pass: the demo's failing webhook endpoint gets its deliveries refused (Parceiros).
  await deliverWebhooksOnce({ db, clock, timeZone: config.timeZone, env: 'test' })

  const email = 'admin@amparo.example'
  const password = randomBytes(12).toString('base64url')
  const at = new Date(now).toISOString()
  const password_hash = await hashPassword(password)
  await retryingTransaction(db, (trx) =>
    trx
      .insertInto('operators')
      .values({
        email,
        role: 'admin',
        password_hash,
        created_at: at,
        password_changed_at: at,
      })
      .execute(),
  )

  const consoleApp = await buildConsoleApp({
    config,
    db,
    clock,
    gateway: null,
    logger: false,
    staticRoot: await consoleRoot(),
  })
  await consoleApp.listen({ host: '127.0.0.1', port: 0 })
  const { port } = consoleApp.server.address() as AddressInfo
  return {
    base: `http://127.0.0.1:${port}`,
    email,
    password,
    totpSecret: undefined as string | undefined,
    claimId: String(claims[0]),
    partnerId: String(first.id),
    search: searchable,
    async close() {
      await consoleApp.close()
      await app.close()
      await db.destroy()
    },
  }
}
