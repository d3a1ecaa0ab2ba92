import { type App, buildApp } from '../../src/app.js'
import type { Clock } from '../../src/shared/clock.js'
import { checkInjected } from './openapi-responses.js'
import { createTestDatabase, type TestDatabase } from './test-db.js'

export interface TestContext extends TestDatabase {
  app: App
  close(): Promise<void>
}

/**
 * The app on a fresh database, called in-process with `app.inject`. `logStream` captures the
 * production logger's output (level from `env.LOG_LEVEL`, redaction included); without it or
 * `logger`, nothing is logged. Every injected response is checked against the app's OpenAPI
 * document (status documented, body matching its schema): a mismatch fails the calling test.
 */
export async function createTestApp(
  options: {
    clock?: Clock
    logger?: object
    logStream?: { write(line: string): void }
    env?: Record<string, string>
  } = {},
): Promise<TestContext> {
  const database = await createTestDatabase({ env: options.env })
  const app = await buildApp({
    config: database.config,
    db: database.db,
    clock: options.clock,
    logger: options.logger ?? (options.logStream ? undefined : false),
    logStream: options.logStream,
  })
  checkEveryResponse(app)
  return {
    ...database,
    app,
    async close() {
      await app.close()
      await database.drop()
    },
  }
}

/**
 * Wraps `app.inject` so that each response is checked against the OpenAPI document once it
 * arrives; a violation throws from the `inject` call, failing the test that made it.
 */
export function checkEveryResponse(app: App): App {
  const inject = app.inject.bind(app) as (...args: unknown[]) => unknown
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
