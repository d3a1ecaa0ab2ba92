import { type App, buildApp } from '../../src/app.js'
import type { Clock } from '../../src/shared/clock.js'
import { createTestDatabase, type TestDatabase } from './test-db.js'

export interface TestContext extends TestDatabase {
  app: App
  close(): Promise<void>
}

/**
 * The app on a fresh database, called in-process with `app.inject`. `logStream` captures the
 * production logger's output (level from `env.LOG_LEVEL`, redaction included); without it or
 * `logger`, nothing is logged.
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
  return {
    ...database,
    app,
    async close() {
      await app.close()
      await database.drop()
    },
  }
}
