import type { Server as HttpServer } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyRequest } from 'fastify'
import { pino } from 'pino'
import { buildApp } from './app.js'
import type { Config } from './config.js'
import { buildConsoleApp, type ConsoleApp } from './console/app.js'
import { createDb, type Db } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { whenReachable } from './db/reachable.js'
import { type DemoOperator, type DemoPartner, isEmpty, loadDemoIfEmpty } from './demo/demo.js'
import { DEMO_CONTRACT } from './demo/demo-contract.js'
import { buildPortalApp, type PortalApp } from './portal/app.js'
import { startBackground, workerDeps } from './worker/background.js'

const SHUTDOWN_GRACE_MS = 10_000
/** The in-process jobs' interval (`amparo worker --interval`'s default). */
const IN_PROCESS_INTERVAL_MS = 60_000

/**
 * Migrates, loads the demo on an empty test database, listens, and closes gracefully on
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the database.
 */
export async function startServer(
  config: Readonly<Config>,
  print: (line: string) => void,
  { worker = false }: { worker?: boolean } = {},
): Promise<void> {
  const db = createDb(config.database)
  // Signals are taken from the start: one that arrives while the listeners open (the API answers
  // before the console has started) is acted on once they are, rather than killing the process
  // undrained.
  let signalled: string | null = null
  let stop: ((signal: string) => Promise<void>) | null = null
  const onSignal = (signal: string) => {
    if (signalled) return
    signalled = signal
    void stop?.(signal)
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
  // A start that fails (a port taken, an address that cannot be bound) closes the database too:
  // the PostgreSQL pool would otherwise keep the process alive, serving nothing, for 30 s.
  const { app, consoleApp, portalApp, metricsServer } = await listening(config, db, print).catch(
    async (error: unknown) => {
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
      await db.destroy().catch(() => {})
      throw error
    },
  )

  // `amparo serve` on SQLite: the background jobs run here, so that `npm start` is a complete
  // service (webhooks delivered, renewals charged, the coverage clock moving). SQLite answers
  // synchronously: requests run between the jobs' transactions, each of which starts in a turn of
  // the event loop of its own (src/db/README.md, Transactions).
  const background = worker
    ? startBackground(
        workerDeps(db, config, {
          gateway: app.gateway,
          log: app.log.child({ name: 'amparo-worker' }),
        }),
        { intervalMs: IN_PROCESS_INTERVAL_MS, env: config.env, mail: config.mail },
      )
    : null
  if (background) app.log.info('background jobs running in this process')
  else
    app.log.warn(
      'no background jobs run in this process: run `amparo worker` beside it, or webhooks are never delivered, renewals never charged and coverage never starts or ends (`serve --worker` runs them here)',
    )

  stop = async (signal: string) => {
    // Draining: still serving, but /ready answers 503 so that the load balancer stops sending
    // new requests before the listener closes (AMPARO_DRAIN_SECONDS, 0 by default).
    app.lifecycle.draining = true
    app.log.info({ signal, drain_seconds: config.drainSeconds }, 'shutting down')
    if (config.drainSeconds > 0) await sleep(config.drainSeconds * 1000)
    const force = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS)
    force.unref()
    await Promise.all([app.close(), consoleApp?.close(), portalApp?.close()])
    await background?.stop()
    metricsServer?.close()
    await db.destroy()
    process.exit(0)
  }
  if (signalled) void stop(signalled)
}

/** The migrated database served on its port (and metrics on theirs); on failure nothing is left open but `db`. */
async function listening(config: Readonly<Config>, db: Db, print: (line: string) => void) {
  // Synchronous, as the app's logger: with pino's default asynchronous one, a piped stdout
  // received nothing more (not even the demo's credentials) in the tests that read it.
  const startup = pino(
    { level: config.logLevel, base: { name: 'amparo' } },
    pino.destination({ dest: 1, sync: true }),
  )
  await whenReachable(() => migrateToLatest(db), {
    log: (details, message) => startup.warn(details, message),
  })
  let demo: Awaited<ReturnType<typeof loadDemoIfEmpty>> = null
  if (config.env === 'test' && (await isEmpty(db))) {
    demo = await loadDemoIfEmpty(db, config, new Date().toISOString())
    if (demo) printDemo(demo.partners, config, print)
    else print('Another process starting at the same moment loaded the demo: its output has the credentials.')
  }
  // prom-client (≈ 13 MB, 40 ms) is loaded only when metrics are served.
  const exporter = config.metrics.port ? await import('./plugins/metrics.js') : null
  const metrics = exporter?.createMetrics(db)
  const app = await buildApp({ config, db, metrics, afterCommit: killAfterCommit(config) })
  let metricsServer: HttpServer | null = null
  let consoleApp: ConsoleApp | null = null
  let portalApp: PortalApp | null = null
  try {
    if (exporter && metrics)
      metricsServer = await exporter.serveMetrics(metrics, config.metrics.host, config.metrics.port)
    await app.listen({ host: config.host, port: config.port })
    consoleApp = await listeningConsole(config, db, app.gateway, startup)
    portalApp = await listeningPortal(config, db, app.gateway, startup)
  } catch (error) {
    metricsServer?.close()
    await consoleApp?.close()
    await app.close()
    throw error
  }
  if (consoleApp) printConsole(consoleApp, demo?.operator ?? null, print)
  if (portalApp) printPortal(portalApp, demo !== null, print)
  return { app, consoleApp, portalApp, metricsServer }
}

/**
 * The operator console on its own listener (README, Operator console). Its default port, when
 * taken (another `amparo serve` on this machine), leaves the console off with a warning rather
 * than the API down; a port that was chosen must be bound.
 */
async function listeningConsole(
  config: Readonly<Config>,
  db: Db,
  gateway: ConsoleApp['gateway'],
  log: { warn: (details: object, message: string) => void },
): Promise<ConsoleApp | null> {
  const settings = config.console
  if (!settings) return null
  const consoleApp = await buildConsoleApp({ config, db, gateway })
  try {
    await consoleApp.listen({ host: settings.host, port: settings.port })
    return consoleApp
  } catch (error) {
    await consoleApp.close()
    if (settings.portSet || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    log.warn(
      { port: settings.port },
      'the operator console is off: its default port is in use (set AMPARO_CONSOLE_PORT to another one)',
    )
    return null
  }
}

/** The insured's portal on its own listener (README, Portal do segurado), started as the console is. */
async function listeningPortal(
  config: Readonly<Config>,
  db: Db,
  gateway: PortalApp['gateway'],
  log: { warn: (details: object, message: string) => void },
): Promise<PortalApp | null> {
  const settings = config.portal
  if (!settings) return null
  const portalApp = await buildPortalApp({ config, db, gateway })
  try {
    await portalApp.listen({ host: settings.host, port: settings.port })
    return portalApp
  } catch (error) {
    await portalApp.close()
    if (settings.portSet || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    log.warn(
      { port: settings.port },
      'the insured portal is off: its default port is in use (set AMPARO_PORTAL_PORT to another one)',
    )
    return null
  }
}

function printPortal(portalApp: PortalApp, demo: boolean, print: (line: string) => void) {
  const address = portalApp.server.address()
  if (!address || typeof address === 'string') return
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  print(`Insured portal: http://${host}:${address.port}/`)
  if (demo) {
    print(`    insured        ${DEMO_CONTRACT.customer.document} (${DEMO_CONTRACT.customer.name})`)
    print('    sign-in code   GET /sandbox/messages on the API (test keeps messages, sends none)')
  }
  print('')
}

function printConsole(consoleApp: ConsoleApp, operator: DemoOperator | null, print: (line: string) => void) {
  const address = consoleApp.server.address()
  if (!address || typeof address === 'string') return
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  print(`Operator console: http://${host}:${address.port}/`)
  if (operator) {
    print(`    operator       ${operator.email}`)
    print(`    password       ${operator.password}`)
  }
  print('')
}

/**
 * Tests' fault injection (AMPARO_FAULT_KILL_AFTER_COMMIT, test only): the process dies as in a
 * crash, between a write's commit and its answer, for the cluster suite to retry on another.
 */
function killAfterCommit({ faultKillAfterCommit: pattern }: Readonly<Config>) {
  if (!pattern) return undefined
  return (request: FastifyRequest) => {
    if (pattern.test(`${request.method} ${request.url.split('?')[0]}`)) process.kill(process.pid, 'SIGKILL')
  }
}

function printDemo(partners: DemoPartner[], config: Readonly<Config>, print: (line: string) => void) {
  const base = config.publicUrl || `http://${config.host}:${config.port}`
  print('Empty database: loaded the demo catalog and two demo partners.')
  for (const p of partners) {
    print('')
    print(`  ${p.name} — gateway ${p.gateway}`)
    print(`    client_id      ${p.client_id}`)
    print(`    client_secret  ${p.client_secret}`)
    print(`    email          ${p.email}`)
    print(`    password       ${p.password}`)
  }
  const [first] = partners
  if (first) {
    print('')
    print('Try it:')
    print(
      `  curl -s -X POST ${base}/auth/login -H 'Content-Type: application/json' -d '{"client_id":"${first.client_id}","client_secret":"${first.client_secret}"}'`,
    )
  }
  print('')
}
