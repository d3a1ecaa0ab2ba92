import { type App, buildApp } from '../../src/app.js'
import type { Clock } from '../../src/shared/clock.js'
import { createTestDatabase, type TestDatabase } from './test-db.js'

export interface TestContext extends TestDatabase {
  app: App
  close(): Promise<void>
}

/** The app on a fresh database, called in-process with `app.inject`. */
export async function createTestApp(options: { clock?: Clock; logger?: object } = {}): Promise<TestContext> {
  const database = await createTestDatabase()
  const app = await buildApp({
    config: database.config,
    db: database.db,
    clock: options.clock,
    logger: options.logger ?? false,
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
