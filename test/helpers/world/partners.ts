import type { App } from '../../../src/app.js'
import type { Db } from '../../../src/db/database.js'
import type { GatewayMode } from '../../../src/db/tables/partner.js'
import { retryingTransaction } from '../../../src/db/transaction.js'
import {
  createPartner,
  issueCredentials,
  newCredentials,
  newUser,
  upsertUser,
} from '../../../src/modules/partners/partner.service.js'
import { MARIA } from '../bodies.js'

// A partner with credentials, the token it logs in for, and the customers it registers over HTTP.

const NOW = '2026-11-21T12:00:00.000Z'

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
  const partner = await retryingTransaction(db, (trx) =>
    createPartner(trx, { gateway: 'external', name, ...rest }, NOW),
  )
  const credentials = await credentialsFor(db, partner.id, 'test', NOW)
  return { id: partner.id, clientId: credentials.client_id, clientSecret: credentials.client_secret }
}

/** New client credentials for the partner, hashed before the transaction that stores them. */
export async function credentialsFor(db: Db, partnerId: number, env: 'test' | 'production', now = NOW) {
  const credentials = await newCredentials(env)
  return retryingTransaction(db, (trx) => issueCredentials(trx, partnerId, credentials, now))
}

export async function seedUser(db: Db, partnerId: number, email: string, password: string, now = NOW) {
  const user = await newUser(email, password)
  return retryingTransaction(db, (trx) => upsertUser(trx, partnerId, user, now))
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
