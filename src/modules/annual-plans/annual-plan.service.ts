import type { Db, Reader, Trx } from '../../db/database.js'
import type { PaymentMethod } from '../../db/tables/annual-plan.js'
import { usedDevice } from '../../http/contracting-fields.js'
import { normalizeImei } from '../../shared/documents.js'
import { type FieldErrors, NotFoundError, ValidationError } from '../../shared/errors.js'
import { applyRateBp } from '../../shared/money.js'
import type { PartnerTime } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { resolveCustomer } from '../customers/customer-reference.service.js'
import { protectDevices } from '../devices/device-protection.service.js'
import type { RenderingContext } from '../events/event.service.js'
import { type AnnualQuote, quoteAnnualPlan } from '../plans/quotation.service.js'
import { checkSellingStore } from '../shopkeepers/shopkeeper.service.js'
import { annualPlanResource, type ViewContext } from './annual-plan.mapper.js'
import {
  type AnnualPlanFilter,
  type AnnualPlanRow,
  findAnnualPlanRow,
  findAnnualPlanView,
  insertAnnualPlan,
  listAnnualPlanViews,
} from './annual-plan.repository.js'
import type { AnnualPlanBody } from './annual-plan.schemas.js'
import { catchUpCoverageOf, recordAnnualPlanEvent } from './annual-plan-lifecycle.service.js'

/**
 * Contracts an annual plan, `awaiting_payment`: every reference is checked against the partner,
 * and it is priced by the annual quotation itself, so the premium is the quote's for the same
 * inputs. Only the listed inputs are read; status, prices and ids never come from the body.
 */
export async function contractAnnualPlan(
  trx: Trx,
  partner: PartnerContext,
  body: AnnualPlanBody,
  time: PartnerTime,
  rendering: RenderingContext,
): Promise<number> {
  const { partnerId } = partner
  const { now } = time
  const errors: FieldErrors = {}
  const used = usedDevice(body.is_used, body.used, errors)
  const quote = await quoteOrCollect(trx, partner, body, used, errors)
  const customer = await resolveCustomer(trx, partnerId, body, errors)
  await checkSellingStore(trx, partnerId, body.store_id, errors)
  // The schema has checked both formats; separators are dropped before comparing.
  const imei = normalizeImei(body.imei) ?? body.imei
  const imei2 = body.imei_2 ? (normalizeImei(body.imei_2) ?? body.imei_2) : null
  if (imei2 === imei) errors.imei_2 = ['The imei 2 and imei must be different.']
  const payment = partner.gateway === 'external' ? declaredPayment(body, errors) : null
  if (!quote || !customer || Object.keys(errors).length > 0) throw new ValidationError(errors)

  const id = await insertAnnualPlan(trx, {
    partner_id: partnerId,
    customer_id: customer.id,
    plan_id: quote.plan.id,
    model_id: quote.model.id,
    store_id: body.store_id ?? null,
    imei,
    imei_2: imei2,
    is_used: used,
    lmi: quote.lmi,
    premium: quote.premium,
    franchise: applyRateBp(quote.lmi, quote.plan.franchise_rate_bp ?? 0),
    status: 'awaiting_payment',
    payment_method: payment?.method ?? null,
    payment_installments: payment?.installments ?? null,
    created_at: now,
    updated_at: now,
  })
  // Last, once the row it names exists: a device protected elsewhere rolls the contract back.
  const devices = [
    { field: 'imei', label: 'imei', value: imei },
    { field: 'imei_2', label: 'imei 2', value: imei2 },
  ]
  await protectDevices(trx, { annualPlanId: id }, devices, {
    ...time,
    partnerId,
    timeZone: rendering.timeZone,
  })
  await recordAnnualPlanEvent(trx, 'annual_plan.created', id, now, rendering)
  return id
}

/** The quotation's answer, or its 422 errors merged into ours so one response lists them all. */
async function quoteOrCollect(
  trx: Trx,
  partner: PartnerContext,
  body: AnnualPlanBody,
  used: boolean,
  errors: FieldErrors,
): Promise<AnnualQuote | undefined> {
  try {
    return await quoteAnnualPlan(trx, partner, {
      modelId: body.model_id,
      maxima: body.maxima ?? undefined,
      used,
      planId: body.plan_id,
    })
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error
    Object.assign(errors, error.errors)
    return undefined
  }
}

/** External partners say how their customer pays them; cards need a number of installments. */
function declaredPayment(
  body: AnnualPlanBody,
  errors: FieldErrors,
): { method: PaymentMethod; installments: number } | null {
  const { payment } = body
  if (!payment) {
    errors.payment = ['The payment field is required for partners with the external gateway.']
    return null
  }
  if (payment.method !== 'credit_card') return { method: payment.method, installments: 1 }
  if (payment.installments === undefined) {
    errors['payment.installments'] = [
      'The payment installments field is required when payment method is credit card.',
    ]
    return null
  }
  return { method: payment.method, installments: payment.installments }
}

/** The plan as the API shows it (status by the clock at `view.now`); 404 when it is not the partner's. */
export async function showAnnualPlan(db: Reader, partnerId: number, id: number, view: ViewContext) {
  const row = await findAnnualPlanView(db, partnerId, id)
  if (!row) throw new NotFoundError('Annual plan')
  return annualPlanResource(row, view)
}

/**
 * GET /annual-plans/{id}: showAnnualPlan, once a coverage boundary the clock crossed is stored with
 * its event (catchUpCoverageOf), when this is the first read to show it.
 */
export async function readAnnualPlan(
  db: Db,
  partnerId: number,
  id: number,
  view: ViewContext,
  rendering: RenderingContext,
) {
  const row = await findAnnualPlanView(db, partnerId, id)
  if (!row) throw new NotFoundError('Annual plan')
  if (await catchUpCoverageOf(db, [row], view.now, rendering)) return showAnnualPlan(db, partnerId, id, view)
  return annualPlanResource(row, view)
}

/**
 * A page of the partner's plans matching `filter` at `view.now`, newest first, and their total;
 * coverage boundaries crossed are stored with their events first (see readAnnualPlan).
 */
export async function listAnnualPlans(
  db: Db,
  partnerId: number,
  filter: AnnualPlanFilter,
  page: { offset: number; limit: number },
  view: ViewContext,
  rendering: RenderingContext,
) {
  let { rows, total } = await listAnnualPlanViews(db, partnerId, filter, view.now, page)
  if (await catchUpCoverageOf(db, rows, view.now, rendering)) {
    ;({ rows, total } = await listAnnualPlanViews(db, partnerId, filter, view.now, page))
  }
  return { data: rows.map((row) => annualPlanResource(row, view)), total }
}

/** The plan's row for the payment and cancellation rules; 404 when it is not the partner's. */
export async function requireAnnualPlanRow(
  db: Reader,
  partnerId: number,
  id: number,
): Promise<AnnualPlanRow> {
  const row = await findAnnualPlanRow(db, partnerId, id)
  if (!row) throw new NotFoundError('Annual plan')
  return row
}
