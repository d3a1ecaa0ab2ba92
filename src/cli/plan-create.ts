import { type Command, Option } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { createPlan } from '../modules/plans/plan.service.js'
import { rateToBp } from '../shared/money.js'
import { type Io, positiveInt, report, UsageError, withDatabase } from './context.js'

interface Options {
  partner: string
  kind: 'subscription' | 'annual'
  name: string
  installments?: string
  monthlyRate?: string
  franchiseRate?: string
  annualRate?: string
  usedFactor?: string
  coverage: string[]
  default?: boolean
  json?: boolean
}

export function registerPlanCreate(plan: Command, io: Io) {
  plan
    .command('create')
    .description('Create a plan for a partner. Rates are decimal fractions of the LMI (0.012 = 1.2%).')
    .requiredOption('--partner <id>', 'partner id')
    .addOption(
      new Option('--kind <kind>', 'plan kind').choices(['subscription', 'annual']).makeOptionMandatory(),
    )
    .requiredOption('--name <name>', 'plan name shown to partners')
    .option('--installments <n>', 'subscription: number of monthly installments (1-60)')
    .option('--monthly-rate <rate>', 'subscription: monthly premium = LMI × rate')
    .option('--franchise-rate <rate>', 'subscription: franchise (deductible) = LMI × rate')
    .option('--annual-rate <rate>', 'annual: premium = LMI × rate')
    .option('--used-factor <factor>', 'annual: premium multiplier for used devices (default 1)')
    .option(
      '--coverage <text>',
      'a coverage (repeat for several)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--default', "annual: make it the partner's default annual plan")
    .addHelpText(
      'after',
      '\nRates are above 0 and at most 1 (the franchise rate may be 0); the used-device factor at most 10.\nFlags of the other kind of plan are refused.',
    )
    .option('--json', 'print one JSON object')
    .action(async (o: Options) => {
      const partnerId = positiveInt(o.partner, '--partner')
      const created = await withDatabase(io, (db) =>
        retryingTransaction(db, (trx) =>
          createPlan(
            trx,
            {
              partnerId,
              kind: o.kind,
              name: o.name,
              coverages: o.coverage,
              installments:
                o.installments === undefined ? undefined : positiveInt(o.installments, '--installments'),
              monthlyRateBp: rate(o.monthlyRate, '--monthly-rate'),
              franchiseRateBp: rate(o.franchiseRate, '--franchise-rate'),
              annualRateBp: rate(o.annualRate, '--annual-rate'),
              usedFactorBp: rate(o.usedFactor, '--used-factor'),
              isDefault: o.default,
            },
            new Date().toISOString(),
          ),
        ),
      )
      const result = {
        id: created.id,
        partner_id: created.partner_id,
        kind: created.kind,
        name: created.name,
        installments: created.installments,
        monthly_rate: fraction(created.monthly_rate_bp),
        franchise_rate: fraction(created.franchise_rate_bp),
        annual_rate: fraction(created.annual_rate_bp),
        used_factor: fraction(created.used_factor_bp),
        coverages: JSON.parse(created.coverages) as string[],
        is_default: Boolean(created.is_default),
      }
      report(io, o.json, result, `Created ${result.kind} plan #${result.id} ${result.name}.`)
    })
}

function rate(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const bp = /^\d+(\.\d+)?$/.test(value) ? rateToBp(Number(value)) : null
  if (bp === null) throw new UsageError(`${flag} must be a non-negative decimal with at most 4 decimals`)
  return bp
}

const fraction = (bp: number | null) => (bp === null ? null : bp / 10_000)
