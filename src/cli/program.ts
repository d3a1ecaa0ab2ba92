import { Command, CommanderError } from 'commander'
import { ConfigError } from '../config-values.js'
import { AppError } from '../shared/errors.js'
import { registerCatalogImport } from './catalog-import.js'
import { registerClaimDecisions } from './claim-decide.js'
import { registerClaimList } from './claim-list.js'
import { registerClaimShow } from './claim-show.js'
import { type Io, UsageError } from './context.js'
import { registerCredentialsIssue } from './credentials-issue.js'
import { registerCredentialsRevoke } from './credentials-revoke.js'
import { registerDemo } from './demo.js'
import { registerMigrate } from './migrate.js'
import { registerOperator } from './operator.js'
import { registerPartnerCreate } from './partner-create.js'
import { registerPartnerGateway } from './partner-gateway.js'
import { registerPartnerNotifyInsured } from './partner-notify-insured.js'
import { registerPlanCreate } from './plan-create.js'
import { registerRefundRetry } from './refund-retry.js'
import { registerServe } from './serve.js'
import { registerUserCreate } from './user-create.js'
import { registerWorker } from './worker.js'

export function buildProgram(io: Io): Command {
  const program = new Command('amparo')
    .description('Amparo operator commands. Configuration comes from the environment (see README).')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: () => {} })
    .showSuggestionAfterError(true)

  registerServe(program, io)
  registerWorker(program, io)
  registerMigrate(program, io)
  registerDemo(program, io)
  const partner = program.command('partner').description('Create partners and set their payment gateway.')
  registerPartnerCreate(partner, io)
  registerPartnerGateway(partner, io)
  registerPartnerNotifyInsured(partner, io)
  const credentials = program.command('credentials').description('Issue and revoke client credentials.')
  registerCredentialsIssue(credentials, io)
  registerCredentialsRevoke(credentials, io)
  const user = program.command('user').description('Partner users (email/password login).')
  registerUserCreate(user, io)
  const catalog = program.command('catalog').description('The device catalog.')
  registerCatalogImport(catalog, io)
  const plan = program.command('plan').description('Subscription and annual plans.')
  registerPlanCreate(plan, io)
  const refund = program.command('refund').description('Refunds of canceled annual plans.')
  registerRefundRetry(refund, io)
  const claim = program
    .command('claim')
    .description('Claims: list, show, approve, deny, settle, request documents.')
  registerClaimList(claim, io)
  registerClaimShow(claim, io)
  registerClaimDecisions(claim, io)
  registerOperator(program, io)
  return program
}

/**
 * Runs one command and returns its exit code: 0 done, 2 a wrong argument or a refused
 * operation (one line on stderr, never a stack trace), 1 anything unexpected.
 */
export async function run(argv: string[], io: Io): Promise<number> {
  try {
    await buildProgram(io).parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0
      // A command is missing: commander has already written the usage on stderr.
      if (error.code === 'commander.help') return 2
      io.err(`amparo: ${error.message.replace(/^error: /, '').split('\n')[0]}`)
      return 2
    }
    const message = error instanceof Error ? error.message : String(error)
    io.err(`amparo: ${message.split('\n')[0]}`)
    return error instanceof UsageError || error instanceof AppError || error instanceof ConfigError ? 2 : 1
  }
}
