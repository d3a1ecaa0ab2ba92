import type { FastifyRequest } from 'fastify'
import type { Db } from '../../db/database.js'
import { NotFoundError } from '../../shared/errors.js'
import { baseUrl } from '../../http/links.js'
import { annualPlanResource } from './annual-plan.mapper.js'
import { findAnnualPlanRow, findAnnualPlanView } from './annual-plan.repository.js'

/**
 * The plan as the API shows it to the request's partner, status by the clock now; 404 when not
 * theirs. `db` is the route's transaction when a write reads it back before its commit.
 */
export async function annualPlanOf(db: Db, request: FastifyRequest, id: number) {
  const { config, clock } = request.server
  const row = await findAnnualPlanView(db, request.partner.partnerId, id)
  if (!row) throw new NotFoundError('Annual plan')
  const now = clock.now().toISOString()
  return annualPlanResource(row, { base: baseUrl(request), timeZone: config.timeZone, now })
}

/** The plan's row for the payment and cancellation rules; 404 when it is not the request partner's. */
export async function annualPlanRowOf(db: Db, request: FastifyRequest, id: number) {
  const row = await findAnnualPlanRow(db, request.partner.partnerId, id)
  if (!row) throw new NotFoundError('Annual plan')
  return row
}
