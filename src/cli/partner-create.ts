import { type Command, Option } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { createPartner } from '../modules/partners/partner.service.js'
import { rateToBp } from '../shared/money.js'
import { type Io, report, UsageError, withDatabase } from './context.js'

interface Options {
  name: string
  gateway: 'external' | 'own'
  document?: string
  lmiMinFactor?: string
  lmiMaxFactor?: string
  json?: boolean
}

export function registerPartnerCreate(partner: Command, io: Io) {
  partner
    .command('create')
    .description('Create a partner with its matrix store; every model of the catalog is attributed to it.')
    .requiredOption('--name <name>', 'trading name')
    .addOption(
      new Option('--gateway <mode>', 'payment gateway mode')
        .choices(['external', 'own'])
        .makeOptionMandatory(),
    )
    .option('--document <cnpj>', 'CNPJ of the partner (its matrix store)')
    .option('--lmi-min-factor <factor>', 'lowest authorized LMI as a factor of the model default', '0.5')
    .option('--lmi-max-factor <factor>', 'highest authorized LMI as a factor of the model default', '1.0')
    .option('--json', 'print one JSON object')
    .action(async (options: Options) => {
      const lmiMinFactorBp = factor(options.lmiMinFactor, '--lmi-min-factor')
      const lmiMaxFactorBp = factor(options.lmiMaxFactor, '--lmi-max-factor')
      const created = await withDatabase(io, (db) =>
        retryingTransaction(db, (trx) =>
          createPartner(trx, { ...options, lmiMinFactorBp, lmiMaxFactorBp }, new Date().toISOString()),
        ),
      )
      report(
        io,
        options.json,
        created,
        `Created partner #${created.id} ${created.name} (${created.gateway}).`,
      )
    })
}

function factor(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const bp = Number.isFinite(Number(value)) ? rateToBp(Number(value)) : null
  if (bp === null || bp === 0)
    throw new UsageError(`${flag} must be a positive number with at most 4 decimals`)
  return bp
}
