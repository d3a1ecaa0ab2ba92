import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { TokenService } from '../modules/auth/token.service.js'
import type { Clock } from '../shared/clock.js'

export interface AppContext {
  config: Readonly<Config>
  db: Db
  clock: Clock
  tokens: TokenService
}

declare module 'fastify' {
  interface FastifyInstance extends AppContext {}
}

/** What every route may use: configuration, database, clock and token service. */
export const contextPlugin = fp<AppContext>(
  async (app, { config, db, clock, tokens }) => {
    app.decorate('config', config)
    app.decorate('db', db)
    app.decorate('clock', clock)
    app.decorate('tokens', tokens)
  },
  { name: 'context' },
)
