import type { Command } from 'commander'
import { Option } from 'commander'
import { createOperator, disableOperator, type OperatorView } from '../modules/operators/operator.service.js'
import { resetPassword, resetSecondFactor } from '../modules/operators/operator-credentials.service.js'
import { cliActor } from './audit.js'
import { type Io, report, withDatabase } from './context.js'

// The operator console's accounts (README, Operator console): every change is audited as `cli:<os user>`.

const acting = (io: Io) => ({ actor: cliActor(io), ip: null, now: new Date() })

const line = (o: OperatorView) =>
  `#${o.id} ${o.email} (${o.role})${o.disabled_at ? `, disabled ${o.disabled_at}` : ''}`

export function registerOperator(program: Command, io: Io) {
  const operator = program
    .command('operator')
    .description('Operator console accounts: create, disable, reset a password or a second factor.')

  operator
    .command('create')
    .description(
      'Create an operator; without --password a one-time password is printed (shown once), which the operator replaces at its first sign-in.',
    )
    .requiredOption('--email <email>', 'the operator’s e-mail (its login)')
    .addOption(
      new Option('--role <role>', 'admin, adjuster or viewer')
        .choices(['admin', 'adjuster', 'viewer'])
        .makeOptionMandatory(),
    )
    .option('--password <password>', 'its password (12 to 200 characters) instead of a one-time one')
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; role: string; password?: string; json?: boolean }) => {
      const created = await withDatabase(io, (db) =>
        createOperator(
          db,
          { email: options.email, role: options.role, password: options.password },
          acting(io),
        ),
      )
      const shown = options.password === undefined
      report(
        io,
        options.json,
        shown ? created : { operator: created.operator },
        `Created operator ${line(created.operator)}.${shown ? `\npassword ${created.password}\n(the password is not shown again)` : ''}`,
      )
    })

  operator
    .command('disable')
    .description('Disable an operator: its sessions end at once and it can no longer sign in.')
    .requiredOption('--email <email>', 'the operator’s e-mail')
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; json?: boolean }) => {
      const disabled = await withDatabase(io, (db) =>
        disableOperator(db, { email: options.email }, acting(io)),
      )
      report(io, options.json, { operator: disabled }, `Disabled operator ${line(disabled)}.`)
    })

  operator
    .command('reset-password')
    .description(
      'Give an operator a new one-time password (shown once), to replace at its next sign-in; its sessions end.',
    )
    .requiredOption('--email <email>', 'the operator’s e-mail')
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; json?: boolean }) => {
      const reset = await withDatabase(io, (db) => resetPassword(db, { email: options.email }, acting(io)))
      report(
        io,
        options.json,
        reset,
        `New password for operator ${line(reset.operator)}:\npassword ${reset.password}\n(the password is not shown again)`,
      )
    })

  operator
    .command('reset-totp')
    .description(
      'Clear an operator’s second factor (a lost phone): its sessions end and it enrols TOTP again.',
    )
    .requiredOption('--email <email>', 'the operator’s e-mail')
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; json?: boolean }) => {
      const reset = await withDatabase(io, (db) =>
        resetSecondFactor(db, { email: options.email }, acting(io)),
      )
      report(
        io,
        options.json,
        { operator: reset },
        `Second factor cleared for operator ${line(reset)}: it enrols again at its next sign-in.`,
      )
    })
}
