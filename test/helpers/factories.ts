import type { App } from '../../src/app.js'
import type { Db } from '../../src/db/database.js'
import { importCatalog } from '../../src/modules/catalog/catalog-import.js'
import { createPartner, issueCredentials, upsertUser } from '../../src/modules/partners/partner.service.js'
import type { GatewayMode } from '../../src/modules/partners/partner.table.js'
import { MARIA } from './bodies.js'

const NOW = '2026-11-21T12:00:00.000Z'

export const TEST_CATALOG = {
  brands: [
    {
      name: 'Apple',
      models: [
        { name: 'iPhone 16 Pro', default_lmi: 8999 },
        { name: 'iPhone 15', default_lmi: 4999.9 },
        { name: 'iPhone 12', default_lmi: 2500, active: false },
      ],
    },
    {
      name: 'Samsung',
      models: [
        { name: 'Galaxy S25', default_lmi: 6499 },
        { name: 'Galaxy A15', default_lmi: 1199 },
      ],
    },
    { name: 'Nokia', models: [{ name: '3310', default_lmi: 299, active: false }] },
  ],
}

export async function seedCatalog(db: Db) {
  await db.transaction().execute((trx) => importCatalog(trx, TEST_CATALOG, NOW))
  const models = await db
    .selectFrom('models')
    .innerJoin('brands', 'brands.id', 'models.brand_id')
    .select(['models.id', 'models.name', 'brands.name as brand', 'brands.id as brand_id'])
    .execute()
  const model = (name: string) => {
    const found = models.find((m) => m.name === name)
    if (!found) throw new Error(`no model ${name}`)
    return found
  }
  return { model }
}

let partnerCount = 0

export interface TestPartner {
  id: number
  clientId: string
  clientSecret: string
}

/** What a seeded partner may be given: its gateway mode alone, or with a name and a CNPJ. */
export type PartnerSeed = GatewayMode | { gateway?: GatewayMode; name?: string; document?: string }

/** A partner with client credentials; every model of the catalog seeded so far is attributed. */
export async function seedPartner(db: Db, seed: PartnerSeed = 'external'): Promise<TestPartner> {
  partnerCount += 1
  const { name = `Partner ${partnerCount}`, ...rest } = typeof seed === 'string' ? { gateway: seed } : seed
  const partner = await db
    .transaction()
    .execute((trx) => createPartner(trx, { gateway: 'external', name, ...rest }, NOW))
  const credentials = await issueCredentials(db, partner.id, 'test', NOW)
  return { id: partner.id, clientId: credentials.client_id, clientSecret: credentials.client_secret }
}

export async function seedUser(db: Db, partnerId: number, email: string, password: string) {
  return upsertUser(db, partnerId, email, password, NOW)
}

export async function login(app: App, partner: TestPartner): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { client_id: partner.clientId, client_secret: partner.clientSecret },
  })
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.body}`)
  return response.json().token
}

/** A partner of its own (see `seedPartner`) and a token it logged in for. */
export async function partnerWithToken(
  app: App,
  db: Db,
  seed: PartnerSeed = 'external',
): Promise<{ partner: TestPartner; token: string }> {
  const partner = await seedPartner(db, seed)
  return { partner, token: await login(app, partner) }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** Registers a customer through `POST /customers` (the seed's Maria unless told); the created body. */
export async function createCustomer(
  app: App,
  token: string,
  body: object = MARIA,
): Promise<{ id: number; document: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/customers',
    headers: bearer(token),
    payload: body,
  })
  if (response.statusCode !== 201)
    throw new Error(`POST /customers answered ${response.statusCode}: ${response.body}`)
  return response.json()
}

/** The login statuses of the demo credentials as printed: by client id and secret, then by user. */
export async function demoLogins(
  app: App,
  partners: { client_id: string; client_secret: string; email: string; password: string }[],
): Promise<number[]> {
  const statuses: number[] = []
  for (const p of partners) {
    for (const payload of [
      { client_id: p.client_id, client_secret: p.client_secret },
      { email: p.email, password: p.password },
    ]) {
      statuses.push((await app.inject({ method: 'POST', url: '/auth/login', payload })).statusCode)
    }
  }
  return statuses
}
