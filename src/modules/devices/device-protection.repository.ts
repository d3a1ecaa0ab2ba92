import type { ExpressionBuilder } from 'kysely'
import type { Database, Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import { formatDate, type PartnerTime } from '../../shared/time.js'
import type { ContractRef } from '../contracts/contract-reference.js'

/** Who holds a device's protection. */
export type Holder = ContractRef

type Protections = ExpressionBuilder<Database, 'device_protections'>

/**
 * When a partner contracts: its own time, and real time for what other partners hold; the service
 * zone reads the days subscriptions end on.
 */
export type ContractTime = PartnerTime & { partnerId: number; timeZone: string }

/** The instants `ended` compares, and the days of them. */
type EndTime = { partnerId: number; now: string; realNow: string; today: string; realToday: string }

/**
 * The row's protection is over: its subscription canceled or past its last month (`ends_on`), or
 * its annual plan canceled or past the end of its cover (`expired` follows from the clock, so the
 * stored status may lag). The end is read at real time, or at the partner's own clock for its own
 * contract: a partner whose sandbox clock is years ahead does not end another partner's cover.
 * Once over it never holds again: neither a canceled nor an expired protection comes back.
 */
function ended(eb: Protections, { partnerId, now, realNow, today, realToday }: EndTime) {
  return eb.or([
    eb.exists(
      eb
        .selectFrom('subscriptions as s')
        .select('s.id')
        .whereRef('s.id', '=', 'device_protections.subscription_id')
        .where((subscription) =>
          subscription.or([
            subscription('s.status', '=', 'canceled'),
            subscription.and([
              // Stored `expired` by the partner's own clock, it ends at real time for the others.
              subscription('s.status', 'in', ['pago', 'expired']),
              subscription.or([
                subscription('s.ends_on', '<=', realToday),
                subscription.and([
                  subscription('s.partner_id', '=', partnerId),
                  subscription('s.ends_on', '<=', today),
                ]),
              ]),
            ]),
          ]),
        ),
    ),
    eb.exists(
      eb
        .selectFrom('annual_plans as ap')
        .select('ap.id')
        .whereRef('ap.id', '=', 'device_protections.annual_plan_id')
        .where((plan) =>
          plan.or([
            plan('ap.status', '=', 'canceled'),
            plan('ap.ends_at', '<=', realNow),
            plan.and([plan('ap.partner_id', '=', partnerId), plan('ap.ends_at', '<=', now)]),
          ]),
        ),
    ),
  ])
}

/**
 * Takes each device for `holder`: a key nobody holds is inserted, one whose protection has ended
 * is taken over, one still held is left alone. Answers the keys taken. The primary key decides
 * between concurrent contracts, on either database: on PostgreSQL a second insert of a key waits
 * for the first transaction and then finds its row. Keys go in sorted order, so two contracts
 * naming the same two devices lock them in the same order instead of deadlocking.
 */
export async function claimDevices(
  trx: Trx,
  keys: string[],
  holder: Holder,
  time: ContractTime,
): Promise<Set<string>> {
  const subscriptionId = 'subscriptionId' in holder ? holder.subscriptionId : null
  const annualPlanId = 'annualPlanId' in holder ? holder.annualPlanId : null
  const unique = [...new Set(keys)].sort()
  const rows = await claimStatement(unique.length)(
    trx,
    ...unique,
    subscriptionId,
    annualPlanId,
    time.partnerId,
    time.now,
    time.realNow,
    formatDate(time.now, time.timeZone),
    formatDate(time.realNow, time.timeZone),
  )
  return new Set(rows.map((row) => row.device_key))
}

type Claim = (trx: Trx, ...values: (string | number | null)[]) => Promise<{ device_key: string }[]>

// Compiled once per key count (a contract names one or two devices): built by Kysely on each call,
// its conditional upsert was the costliest part of a contract's JavaScript (docs/benchmarks.md).
const claims = new Map<number, Claim>()

/**
 * The claim of `count` keys: run with the keys, then subscription id, annual plan id, and the
 * contract's time (partner id, now, real now, and their days).
 */
function claimStatement(count: number): Claim {
  let claim = claims.get(count)
  if (!claim) {
    claim = prepared((trx: Trx, ...values: (string | number | null)[]) => {
      const [subscriptionId, annualPlanId, partnerId, now, realNow, today, realToday] = values.slice(
        count,
      ) as [number | null, number | null, number, string, string, string, string]
      return trx
        .insertInto('device_protections')
        .values(
          (values.slice(0, count) as string[]).map((key) => ({
            device_key: key,
            subscription_id: subscriptionId,
            annual_plan_id: annualPlanId,
            created_at: now,
          })),
        )
        .onConflict((oc) =>
          oc
            .column('device_key')
            .doUpdateSet((eb) => ({
              subscription_id: eb.ref('excluded.subscription_id'),
              annual_plan_id: eb.ref('excluded.annual_plan_id'),
              created_at: eb.ref('excluded.created_at'),
            }))
            .where((eb) =>
              ended(eb as unknown as Protections, { partnerId, now, realNow, today, realToday }),
            ),
        )
        .returning('device_key')
    })
    claims.set(count, claim)
  }
  return claim
}
