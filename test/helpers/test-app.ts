import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type App, buildApp } from '../../src/app.js'
import type { Db } from '../../src/db/database.js'
import type { PaymentGateway } from '../../src/modules/payments/payment-gateway.js'
import type { Metrics } from '../../src/plugins/metrics.js'
import type { Clock } from '../../src/shared/time.js'
import { checkInjected } from './openapi-responses.js'
import { createTestDatabase, type TestDatabase } from './test-db.js'

export interface TestContext extends TestDatabase {
  app: App
  close(): Promise<void>
}

export interface TestAppOptions {
  clock?: Clock
  logger?: object
  logStream?: { write(line: string): void }
  /** Settings added to the test database's (`AMPARO_LOGIN_RATE_LIMIT`, `AMPARO_PUBLIC_URL`, …). */
  env?: Record<string, string>
  /** Where the packed TypeScript client is (the project's dist/sdk/ unless told). */
  sdkDirectory?: string
  /** A SQLite file instead of memory, for tests whose CLI or second worker opens its own connection. */
  sqliteFile?: string
  /**
   * SQLite in a file of a fresh temporary folder, removed once the database is closed: for tests
   * that open a second connection or process on it (`env.AMPARO_SQLITE_FILE` names the file).
   */
  onDisk?: boolean
  /** The card gateway (`null` for none); the configured one unless told. */
  gateway?: PaymentGateway | null
  /** The Prometheus metrics the app records, made on its database (none unless told). */
  metrics?: (db: Db) => Metrics
  /** Routes a file adds for its own tests (a handler that throws), before the app is ready. */
  routes?: (app: App) => void
}

/**
 * The set-up fixture of a test file: `const ctx = useTestApp({ clock })` at the top level builds
 * the app on a fresh database before the file's first test (ready to inject) and closes both after
 * its last. `ctx` is filled in place, so it is read inside tests and later `beforeAll` hooks,
 * which run after this one: that is where a file seeds its world (see world.ts). Options given as
 * a function are read when the app is built, for settings known only then (a stub server's URL).
 */
export function useTestApp(options: TestAppOptions | (() => TestAppOptions) = {}): TestContext {
  const ctx = {} as TestContext
  beforeAll(async () => {
    const settled = typeof options === 'function' ? options() : options
    Object.assign(ctx, await createTestApp(settled))
    settled.routes?.(ctx.app)
    await ctx.app.ready()
  })
  afterAll(async () => {
    await ctx.close?.()
  })
  return ctx
}

/**
 * The app on a fresh database, called in-process with `app.inject`. `logStream` captures the
 * production logger's output (level from `env.LOG_LEVEL`, redaction included); without it or
 * `logger`, nothing is logged. Every injected response is checked against the app's OpenAPI
 * document (status documented, body matching its schema): a mismatch fails the calling test.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  const folder = options.onDisk ? mkdtempSync(join(tmpdir(), 'amparo-test-')) : undefined
  const sqliteFile = folder ? join(folder, 'amparo.sqlite') : options.sqliteFile
  const database = await createTestDatabase({ env: options.env, sqliteFile })
  const app = await buildApp({
    config: database.config,
    db: database.db,
    clock: options.clock,
    ...(options.gateway !== undefined && { gateway: options.gateway }),
    logger: options.logger ?? (options.logStream ? undefined : false),
    logStream: options.logStream,
    sdkDirectory: options.sdkDirectory,
    metrics: options.metrics?.(database.db),
  })
  checkEveryResponse(app)
  return {
    ...database,
    app,
    async close() {
      await app.close()
      await database.drop()
      if (folder) rmSync(folder, { recursive: true, force: true })
    },
  }
}

/**
 * Wraps `app.inject` so that each response is checked against the OpenAPI document once it
 * arrives; a violation throws from the `inject` call, failing the test that made it.
 */
export function checkEveryResponse<A extends CheckedApp>(app: A): A {
  const inject = app.inject.bind(app) as unknown as (...args: unknown[]) => unknown
  const checked = (...args: unknown[]) => {
    // The chained and callback forms are passed through unchecked (the suite uses neither).
    if (args.length !== 1 || args[0] === undefined) return inject(...args)
    return (inject(...args) as Promise<InjectedResponse>).then((response) => {
      checkInjected(app, response.raw.req, response)
      return response
    })
  }
  Object.assign(app, { inject: checked })
  return app
}

/** The partner app or the console's: each serves its own OpenAPI document. */
type CheckedApp = Parameters<typeof checkInjected>[0] & { inject: (...args: never[]) => unknown }

interface InjectedResponse {
  statusCode: number
  body: string
  headers: Record<string, unknown>
  raw: { req: { method: string; url: string } }
}

/** `buildApp` for tests that assemble their own app: every injected response is schema-checked too. */
export async function buildCheckedApp(options: Parameters<typeof buildApp>[0]): Promise<App> {
  return checkEveryResponse(await buildApp(options))
}
