import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { Config } from '../config.js'
import { type Db, isPostgres, type Reader, type Trx } from '../db/database.js'
import type { GatewayMode } from '../db/tables/partner.js'
import { retryingTransaction } from '../db/transaction.js'
import { DEMO_EMAIL_DOMAIN } from '../modules/auth/auth.service.js'
import { importCatalog, parseCatalog } from '../modules/catalog/catalog-import.js'
import { ensureDemoOperator } from '../modules/operators/operator.service.js'
import {
  attributeAllModels,
  createPartner,
  issueCredentials,
  newCredentials,
  newUser,
  upsertUser,
} from '../modules/partners/partner.service.js'
import { createPlan, type NewPlan } from '../modules/plans/plan.service.js'
import { createEndpoint } from '../modules/webhooks/webhook-endpoint.service.js'
import { contractDemoCardContracts, payDemoCardContracts } from './demo-card-contracts.js'
import demoCatalog from './demo-catalog.json' with { type: 'json' }
import { demoContractPaidAt, ensureDemoContract, partnerContextOf } from './demo-contract.js'

/**
 * The external demo partner's webhook endpoint that fails (docs/decisions.md, Demo data): a loopback
 * address (allowed in test only) on the discard port, where nothing listens, so every delivery the
 * worker attempts is refused at once and recorded as failed, for the console's Parceiros screen.
 */
export const DEMO_FAILING_WEBHOOK = {
  url: 'http://127.0.0.1:9/amparo/webhooks',
  description: 'Homologação (servidor desligado)',
}

const COVERAGES = ['Roubo e furto qualificado', 'Quebra acidental', 'Danos por líquidos']

const PARTNERS: {
  name: string
  gateway: GatewayMode
  document: string
  email: string
  webhook?: { url: string; description: string }
}[] = [
  {
    name: 'Loja Demo (gateway externo)',
    gateway: 'external',
    document: '11222333000181',
    email: `externo${DEMO_EMAIL_DOMAIN}`,
    webhook: DEMO_FAILING_WEBHOOK,
  },
  {
    name: 'Loja Demo (gateway Amparo)',
    gateway: 'own',
    document: '44556677000186',
    email: `proprio${DEMO_EMAIL_DOMAIN}`,
  },
]

type PlanTemplate = Omit<NewPlan, 'partnerId'>

/** The demo partners' plans (their coverages are mapped to `coverage_types` by migration 0015 too). */
export const DEMO_PLANS: PlanTemplate[] = [
  {
    kind: 'subscription',
    name: 'Proteção Essencial 12x',
    installments: 12,
    monthlyRateBp: 90,
    franchiseRateBp: 2000,
    coverages: COVERAGES.slice(0, 2),
  },
  {
    kind: 'subscription',
    name: 'Proteção Total 12x',
    installments: 12,
    monthlyRateBp: 120,
    franchiseRateBp: 1500,
    coverages: COVERAGES,
  },
  {
    kind: 'subscription',
    name: 'Proteção Total 24x',
    installments: 24,
    monthlyRateBp: 100,
    franchiseRateBp: 1500,
    coverages: COVERAGES,
  },
  {
    kind: 'annual',
    name: 'Proteção Anual',
    annualRateBp: 1100,
    usedFactorBp: 11500,
    coverages: COVERAGES,
    isDefault: true,
  },
]

/** The demo's console operator: an admin with a fixed, published password and no TOTP (test only). */
export interface DemoOperator {
  email: string
  password: string
}

export const DEMO_OPERATOR: DemoOperator = {
  email: `operador${DEMO_EMAIL_DOMAIN}`,
  password: 'amparo-demo-console',
}

export interface DemoPartner {
  id: number
  name: string
  gateway: GatewayMode
  client_id: string
  client_secret: string
  email: string
  password: string
}

/**
 * Loads the demo catalog and two demo partners (external and own gateway) with plans and every
 * model attributed, and the external partner's contract in force (demo-contract.ts). Safe to run again: it adds what is missing, leaves what exists as it is
 * (demo models' prices and active flags included) and issues fresh credentials.
 */
export async function loadDemo(
  db: Db,
  config: Config,
  now: string,
): Promise<{ partners: DemoPartner[]; operator: DemoOperator }> {
  const demo = await load(db, config, now, false)
  if (!demo) throw new Error('the demo loads whatever the database holds')
  return demo
}

/**
 * loadDemo on a database without any partner; null, with nothing written, otherwise. Several API
 * processes starting together on an empty database load it once: only the one that did gets
 * (and prints) credentials, since each fresh password replaces the one printed before it.
 */
export async function loadDemoIfEmpty(
  db: Db,
  config: Config,
  now: string,
): Promise<{ partners: DemoPartner[]; operator: DemoOperator } | null> {
  return load(db, config, now, true)
}

async function load(db: Db, config: Config, now: string, onlyIfEmpty: boolean) {
  const catalog = parseCatalog(demoCatalog)
  const stored = await retryingTransaction(db, async (trx) => {
    if (onlyIfEmpty) {
      // PostgreSQL: the second process waits here, then sees the first one's partners. SQLite: its
      // first write finds the snapshot stale and the transaction starts again, seeing them too.
      if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${DEMO_LOCK})`.execute(trx)
      if (!(await isEmpty(trx))) return null
    }
    // The operator may have repriced or retired demo models since (`catalog import`): a run for
    // fresh credentials must not undo that, so only the missing demo models are added.
    await importCatalog(trx, catalog, now, { keepExisting: true })
    const partners: Pick<DemoPartner, 'id' | 'gateway'>[] = []
    for (const template of PARTNERS) partners.push(await ensurePartner(trx, template, now))
    for (const [i, { id }] of partners.entries()) {
      await ensureDemoContract(trx, id, config, now)
      // The card contracts are the own-gateway demo partner's, not a partner the operator switched.
      if (PARTNERS[i]?.gateway === 'own')
        await contractDemoCardContracts(trx, await partnerContextOf(trx, id), config, now)
    }
    return partners
  })
  if (!stored) return null
  // The card charges, each committed on its own after the gateway answered (never inside a transaction).
  for (const [i, { id }] of stored.entries()) {
    if (PARTNERS[i]?.gateway === 'own')
      await payDemoCardContracts(db, await partnerContextOf(db, id), config, now)
  }

  const partners: DemoPartner[] = []
  for (const [i, template] of PARTNERS.entries()) {
    const { id, gateway } = stored[i] as Pick<DemoPartner, 'id' | 'gateway'>
    const password = randomBytes(9).toString('base64url')
    const user = await newUser(template.email, password)
    const made = await newCredentials(config.env)
    const credentials = await retryingTransaction(db, async (trx) => {
      await upsertUser(trx, id, user, now)
      return issueCredentials(trx, id, made, now)
    })
    partners.push({
      id,
      name: template.name,
      gateway,
      ...credentials,
      email: template.email,
      password,
    })
  }
  await ensureDemoOperator(db, { ...DEMO_OPERATOR, role: 'admin' }, now)
  return { partners, operator: DEMO_OPERATOR }
}

/**
 * The demo partner, created if missing; an existing one keeps the gateway the operator gave it. Its
 * webhook endpoint is registered only with the partner: one the operator deleted stays deleted.
 */
async function ensurePartner(trx: Trx, template: (typeof PARTNERS)[number], now: string) {
  const existing = await trx
    .selectFrom('partners')
    .select(['id', 'gateway'])
    .where('name', '=', template.name)
    .executeTakeFirst()
  const { id, gateway } = existing ?? (await createPartner(trx, template, now))
  // Registered as of the partner's demo history (its contract a week back): an endpoint receives
  // the events from its registration on, and the worker's first run is to fail on that history.
  if (!existing && template.webhook)
    await createEndpoint(trx, id, { ...template.webhook, events: ['*'] }, demoContractPaidAt(now))
  await attributeAllModels(trx, id)
  const plans = await trx.selectFrom('plans').select('name').where('partner_id', '=', id).execute()
  const names = new Set(plans.map((p) => p.name))
  for (const plan of DEMO_PLANS) {
    if (!names.has(plan.name)) await createPlan(trx, { ...plan, partnerId: id }, now)
  }
  return { id, gateway }
}

/** Any constant: the advisory lock only serialises concurrent demo loads. */
const DEMO_LOCK = 0x616d70 // "amp"

export async function isEmpty(db: Reader): Promise<boolean> {
  const row = await db.selectFrom('partners').select('id').limit(1).executeTakeFirst()
  return row === undefined
}
