import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll } from 'vitest'
import type { Config } from '../../src/config.js'
import { buildConsoleApp, type ConsoleApp } from '../../src/console/app.js'
import { SESSION_COOKIE } from '../../src/console/guard.js'
import type { Db } from '../../src/db/database.js'
import type { OperatorRole } from '../../src/db/tables/operator.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { hashPassword } from '../../src/modules/operators/password-hash.js'
import type { PaymentGateway } from '../../src/modules/payments/payment-gateway.js'
import type { Clock } from '../../src/shared/time.js'
import { checkEveryResponse, type TestContext } from './test-app.js'
import { createTestDatabase, type TestDatabase } from './test-db.js'

/** The Origin the console's own pages send (app.inject's default host). */
export const CONSOLE_ORIGIN = 'http://localhost:80'

export interface ConsoleTestContext extends TestDatabase {
  console: ConsoleApp
  /**
   * Headers of a signed-in operator in `role` (a new operator, a completed session): `cookie`, and
   * `origin` for writes. `{ headers: await ctx.loginAs('admin') }`.
   */
  loginAs(role: OperatorRole, options?: { email?: string }): Promise<ConsoleHeaders>
  close(): Promise<void>
}

export interface ConsoleHeaders {
  cookie: string
  origin: string
  [name: string]: string
}

export interface ConsoleAppOptions {
  clock?: Clock
  env?: Record<string, string>
  /** The partner app's test context: the console is built over its database (a world made through the partner API). */
  over?: () => TestContext
  /** The built SPA's folder (static tests); none by default. */
  staticRoot?: string | null
  /** The card gateway (`null` for none); the configured one unless told. */
  gateway?: PaymentGateway | null
  /** Settings changed after loading (`{ env: 'production' }`: TOTP required, Secure cookie). */
  config?: Partial<Config>
}

/**
 * The set-up fixture of a console test file, like useTestApp: `const ctx = consoleApp()` at the
 * top level builds the console app on a fresh database (or, with `over: () => partnerCtx`, over a
 * partner app's, declared after that one) before the first test and closes it after the last.
 */
export function consoleApp(options: ConsoleAppOptions = {}): ConsoleTestContext {
  const ctx = {} as ConsoleTestContext
  beforeAll(async () => {
    Object.assign(ctx, await createConsoleApp(options))
    await ctx.console.ready()
  })
  afterAll(async () => {
    await ctx.close?.()
  })
  return ctx
}

export async function createConsoleApp(options: ConsoleAppOptions = {}): Promise<ConsoleTestContext> {
  const partner = options.over?.()
  const database: TestDatabase = partner
    ? { env: partner.env, config: partner.config, db: partner.db, drop: async () => {} }
    : await createTestDatabase({ env: options.env })
  const app = await buildCheckedConsoleApp({
    config: { ...database.config, ...options.config },
    db: database.db,
    clock: options.clock,
    ...(options.gateway !== undefined && { gateway: options.gateway }),
    logger: false,
    staticRoot: options.staticRoot ?? null,
  })
  return {
    ...database,
    console: app,
    loginAs: (role, { email } = {}) => loginAs(database.db, role, { email, clock: options.clock }),
    async close() {
      await app.close()
      await database.drop()
    },
  }
}

/**
 * `buildConsoleApp` with every injected response checked against the console's OpenAPI document
 * (`GET /api/openapi.json`), as the partner API's are (test-app.ts, checkEveryResponse).
 */
export async function buildCheckedConsoleApp(
  options: Parameters<typeof buildConsoleApp>[0],
): Promise<ConsoleApp> {
  return checkEveryResponse(await buildConsoleApp(options))
}

let sharedHash: Promise<string> | undefined
/** The password of every operator loginAs makes (hashed once per test file: scrypt is slow on purpose). */
export const TEST_OPERATOR_PASSWORD = 'correct horse battery staple'

/** A new operator in `role` and a completed session of it, written directly: its headers. */
export async function loginAs(
  db: Db,
  role: OperatorRole,
  { email, clock }: { email?: string; clock?: Clock } = {},
): Promise<ConsoleHeaders> {
  sharedHash ??= hashPassword(TEST_OPERATOR_PASSWORD)
  const now = (clock?.now() ?? new Date()).toISOString()
  const password_hash = await sharedHash
  const operator = await retryingTransaction(db, (trx) =>
    trx
      .insertInto('operators')
      .values({
        email: email ?? `${role}-${randomBytes(4).toString('hex')}@amparo.test`,
        role,
        password_hash,
        created_at: now,
        password_changed_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
  const token = randomBytes(32).toString('base64url')
  await retryingTransaction(db, (trx) =>
    trx
      .insertInto('operator_sessions')
      .values({
        id: createHash('sha256').update(token).digest('hex'),
        operator_id: operator.id,
        stage: 'done',
        created_at: now,
        last_seen_at: now,
        expires_at: new Date(Date.parse(now) + 12 * 3600_000).toISOString(),
        ip: '127.0.0.1',
        user_agent: 'test',
      })
      .execute(),
  )
  return { cookie: `${SESSION_COOKIE}=${token}`, origin: CONSOLE_ORIGIN }
}
