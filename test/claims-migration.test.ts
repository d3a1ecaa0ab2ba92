import { beforeAll, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate.js'
import { DEMO_PLANS } from '../src/demo/demo.js'
import { useDatabaseAt } from './helpers/world/older-schema.js'
import { seedOlderPlan, seedPartner } from './helpers/world.js'

// Migration 0015 types the coverages of the plans a database already has: the demo's plans, loaded
// before it, can then take claims for the perils their words name (README, Claims).

const ctx = useDatabaseAt('0014-card-attempts')

const ids: Record<string, number> = {}

beforeAll(async () => {
  const partner = await seedPartner(ctx.db)
  for (const plan of DEMO_PLANS) ids[plan.name] = (await seedOlderPlan(ctx.db, partner.id, plan)).id
  ids.untyped = (
    await seedOlderPlan(ctx.db, partner.id, {
      ...DEMO_PLANS[0],
      name: 'Garantia estendida',
      coverages: ['Defeito de fábrica'],
    } as (typeof DEMO_PLANS)[number])
  ).id
  await migrateToLatest(ctx.db)
}, 120_000)

const planOf = (id: number | undefined) =>
  ctx.db
    .selectFrom('plans')
    .select(['coverages', 'coverage_types', 'claim_notice_days', 'max_claims_per_year'])
    .where('id', '=', id ?? 0)
    .executeTakeFirstOrThrow()

it("maps each demo plan's coverages to the perils their words name, with the default claim terms", async () => {
  const typed = Object.fromEntries(
    await Promise.all(
      DEMO_PLANS.map(async ({ name }) => {
        const plan = await planOf(ids[name])
        return [
          name,
          {
            types: JSON.parse(plan.coverage_types),
            notice: plan.claim_notice_days,
            max: plan.max_claims_per_year,
          },
        ]
      }),
    ),
  )
  const terms = { notice: 30, max: 2 }
  const all = ['robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage']
  expect(typed).toEqual({
    // 'Roubo e furto qualificado', 'Quebra acidental'
    'Proteção Essencial 12x': { types: all.slice(0, 3), ...terms },
    // … and 'Danos por líquidos'
    'Proteção Total 12x': { types: all, ...terms },
    'Proteção Total 24x': { types: all, ...terms },
    'Proteção Anual': { types: all, ...terms },
  })
})

it('leaves a plan whose words name no peril without types, its coverages as they were', async () => {
  const plan = await planOf(ids.untyped)
  expect(JSON.parse(plan.coverage_types)).toEqual([])
  expect(JSON.parse(plan.coverages)).toEqual(['Defeito de fábrica'])
})
