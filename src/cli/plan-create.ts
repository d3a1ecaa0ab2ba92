import { type Command, Option } from 'commander'
import { COVERAGE_TYPES, type CoverageType } from '../db/tables/plan.js'
import { retryingTransaction } from '../db/transaction.js'
import { recordAudit } from '../modules/operators/audit.service.js'
import { COVERAGE_TYPE_LABELS } from '../modules/plans/plan.rules.js'
import { createPlan } from '../modules/plans/plan.service.js'
import { rateToBp } from '../shared/money.js'
import { cliActor } from './audit.js'
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
  coverageType: string[]
  claimNoticeDays?: string
  maxClaimsPerYear?: string
  default?: boolean
  /** `--no-claims`: false, to create a plan no claim can be opened on. */
  claims: boolean
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
    .option(
      '--franchise-rate <rate>',
      'franchise (deductible) = LMI × rate (annual plans: optional, default none)',
    )
    .option('--annual-rate <rate>', 'annual: premium = LMI × rate')
    .option('--used-factor <factor>', 'annual: premium multiplier for used devices (default 1)')
    .option(
      '--coverage <text>',
      'a coverage (repeat for several)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .addOption(
      new Option('--coverage-type <type>', 'a peril a claim may name (repeat for several)')
        .choices([...COVERAGE_TYPES])
        .argParser((v: string, all: string[] = []) => {
          if (!(COVERAGE_TYPES as readonly string[]).includes(v)) {
            throw new UsageError(`--coverage-type must be one of ${COVERAGE_TYPES.join(', ')}, got '${v}'`)
          }
          return [...all, v]
        })
        .default([]),
    )
    .option('--claim-notice-days <n>', 'days after a loss within which a claim may be opened (default 30)')
    .option('--max-claims-per-year <n>', 'claims of one contract approved in 365 days, at most (default 2)')
    .option('--default', "annual: make it the partner's default annual plan")
    .option('--no-claims', 'create it without coverage types: no claim can ever be opened on its contracts')
    .addHelpText(
      'after',
      '\nRates are above 0 and at most 1 (the franchise rate may be 0); the used-device factor at most 10.\nFlags of the other kind of plan are refused. Without --coverage-type, the types are those the\n--coverage words name (roubo, furto, quebra, líquido); without --coverage, the types are labelled in Portuguese.\nA plan whose coverages name no type is refused unless --no-claims: no claim could be opened on it.',
    )
    .option('--json', 'print one JSON object')
    .action(async (o: Options) => {
      const partnerId = positiveInt(o.partner, '--partner')
      const created = await withDatabase(io, (db) =>
        retryingTransaction(db, async (trx) => {
          const plan = await createPlan(
            trx,
            {
              partnerId,
              kind: o.kind,
              name: o.name,
              // Without --coverage the types are labelled in Portuguese; with it, its words name them.
              coverages:
                o.coverage.length > 0
                  ? o.coverage
                  : o.coverageType.map((t) => COVERAGE_TYPE_LABELS[t as CoverageType]),
              coverageTypes: o.coverageType.length > 0 ? (o.coverageType as CoverageType[]) : undefined,
              claimNoticeDays:
                o.claimNoticeDays === undefined
                  ? undefined
                  : positiveInt(o.claimNoticeDays, '--claim-notice-days'),
              maxClaimsPerYear:
                o.maxClaimsPerYear === undefined
                  ? undefined
                  : positiveInt(o.maxClaimsPerYear, '--max-claims-per-year'),
              installments:
                o.installments === undefined ? undefined : positiveInt(o.installments, '--installments'),
              monthlyRateBp: rate(o.monthlyRate, '--monthly-rate'),
              franchiseRateBp: rate(o.franchiseRate, '--franchise-rate'),
              annualRateBp: rate(o.annualRate, '--annual-rate'),
              usedFactorBp: rate(o.usedFactor, '--used-factor'),
              isDefault: o.default,
            },
            new Date().toISOString(),
          )
          // Refused after the plan's own checks, so that a wrong rate is told first; the
          // transaction then writes nothing.
          if (o.claims && (JSON.parse(plan.coverage_types) as CoverageType[]).length === 0) {
            throw new UsageError(
              `no coverage type: no claim could be opened on this plan. Name its perils with --coverage-type (${COVERAGE_TYPES.join(', ')}) or --coverage words (roubo, furto, quebra, líquido), or pass --no-claims`,
            )
          }
          await recordAudit(trx, {
            operator: cliActor(io),
            action: 'plan.create',
            recordType: 'plan',
            recordId: String(plan.id),
            before: null,
            after: plan,
            ip: null,
          })
          return plan
        }),
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
        coverage_types: JSON.parse(created.coverage_types) as CoverageType[],
        claim_notice_days: created.claim_notice_days,
        max_claims_per_year: created.max_claims_per_year,
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
