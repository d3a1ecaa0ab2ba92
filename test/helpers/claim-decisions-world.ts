import { expect } from 'vitest'
import type { App } from '../../src/app.js'
import type { Db } from '../../src/db/database.js'
import type { ClaimStatus } from '../../src/db/tables/claim.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { insertClaim, nextClaimSequence } from '../../src/modules/claims/claim.repository.js'
import { claimNumber } from '../../src/modules/claims/claim.rules.js'
import { deviceKey } from '../../src/modules/devices/device.rules.js'
import { subscriptionCard, uniqueImei } from './bodies.js'
import { testClaimRow } from './claim-documents.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  partnerWithToken,
  seedPlans,
  type TestPartner,
  TOTAL_12X,
} from './world.js'

// Claims to decide (the claims-decision, claims-settlement and cli-claims tests): a partner with a subscription plan and an annual plan, contracts paid through
// notify-payment, and claims written through the repository in the status a test needs (opening and
// documents are other suites' concern).

export interface ClaimParty {
  partner: TestPartner
  token: string
  subscriptionPlanId: number
  annualPlanId: number
  customerId: number
  modelId: number
}

export async function claimParty(
  app: App,
  db: Db,
  modelId: number,
  gateway: 'external' | 'own' = 'external',
): Promise<ClaimParty> {
  const { partner, token } = await partnerWithToken(app, db, gateway)
  const [subscriptionPlan, annualPlan] = await seedPlans(db, partner.id, [TOTAL_12X, ANNUAL])
  const customer = await createCustomer(app, token)
  return {
    partner,
    token,
    subscriptionPlanId: subscriptionPlan.id,
    annualPlanId: annualPlan.id,
    customerId: customer.id,
    modelId,
  }
}

async function ok(app: App, token: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const response = await app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) })
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300)
  return response.json()
}

/** A subscription of `serial` with installment 1 paid (`pago`): notified, or by card (own gateway). */
export async function paidSubscription(
  app: App,
  p: ClaimParty,
  serial = uniqueImei(),
  by: 'notify' | 'card' = 'notify',
): Promise<number> {
  const { id } = await ok(app, p.token, 'POST', '/subscriptions', {
    plan_id: p.subscriptionPlanId,
    customer_id: p.customerId,
    model_id: p.modelId,
    serial_number: serial,
  })
  if (by === 'card') {
    await ok(app, p.token, 'POST', `/subscriptions/${id}/payment`, subscriptionCard)
    return id
  }
  const [first] = await ok(app, p.token, 'GET', `/subscriptions/${id}/installments`)
  await ok(app, p.token, 'POST', `/subscriptions/${id}/installments/${first.id}/notify-payment`)
  return id
}

/** An annual plan of `imei` paid by pix (notify-payment). */
export async function paidAnnualPlan(app: App, p: ClaimParty, imei = uniqueImei()): Promise<number> {
  const { id } = await ok(app, p.token, 'POST', '/annual-plans', {
    model_id: p.modelId,
    customer_id: p.customerId,
    imei,
    payment: { method: 'pix' },
  })
  await ok(app, p.token, 'POST', `/annual-plans/${id}/notify-payment`)
  return id
}

export type Contract = { subscriptionId: number } | { annualPlanId: number }

/** A claim of the contract in `status`, a day-old accidental damage, written through the repository. */
export async function claimOf(
  db: Db,
  contract: Contract,
  status: ClaimStatus = 'under_review',
): Promise<number> {
  const now = new Date().toISOString()
  const occurredAt = new Date(Date.now() - 86_400_000).toISOString()
  const source =
    'subscriptionId' in contract
      ? await db
          .selectFrom('subscriptions')
          .select(['partner_id', 'plan_id', 'customer_id', 'model_id', 'serial_number', 'lmi', 'franchise'])
          .where('id', '=', contract.subscriptionId)
          .executeTakeFirstOrThrow()
      : await db
          .selectFrom('annual_plans')
          .select([
            'partner_id',
            'plan_id',
            'customer_id',
            'model_id',
            'imei as serial_number',
            'lmi',
            'franchise',
          ])
          .where('id', '=', contract.annualPlanId)
          .executeTakeFirstOrThrow()
  const customer = await db
    .selectFrom('customers')
    .select('document')
    .where('id', '=', source.customer_id)
    .executeTakeFirstOrThrow()
  const subscriptionId = 'subscriptionId' in contract ? contract.subscriptionId : null
  return retryingTransaction(db, async (trx) => {
    const year = Number(now.slice(0, 4))
    const row = testClaimRow({ ...source, id: subscriptionId }, 'accidental_damage', status, {
      number: claimNumber(year, await nextClaimSequence(trx, year)),
      annual_plan_id: 'annualPlanId' in contract ? contract.annualPlanId : null,
      customer_document: customer.document,
      serial_number: source.serial_number,
      device_key: source.serial_number ? deviceKey(source.serial_number) : null,
      occurred_at: occurredAt,
      description: 'Caiu no chão e a tela quebrou.',
      lmi: source.lmi,
      franchise: source.franchise,
      fraud_signals: JSON.stringify(['early_claim']),
      // As the upload of its last document leaves it (claim-deadline.rules.ts).
      deadline_started_at: status === 'documents_pending' ? null : now,
      created_at: now,
      updated_at: now,
    })
    return insertClaim(trx, row)
  })
}

/** The events of a type about one claim, subscription or annual plan, oldest first. */
export async function eventsOf(db: Db, type: string, objectId: number) {
  const rows = await db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('type', '=', type)
    .orderBy('id')
    .execute()
  return rows.filter((row) => (JSON.parse(row.data) as { id: number }).id === objectId)
}

/** The partner's sandbox decision of its claim. */
export const decide = (app: App, token: string, id: number, payload: object) =>
  app.inject({ method: 'POST', url: `/sandbox/claims/${id}/decision`, headers: bearer(token), payload })

/** The partner's sandbox settlement of its claim. */
export const settle = (app: App, token: string, id: number, payload: object = {}) =>
  app.inject({ method: 'POST', url: `/sandbox/claims/${id}/settle`, headers: bearer(token), payload })
