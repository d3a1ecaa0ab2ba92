import { afterAll, beforeAll } from 'vitest'
import type { Config } from '../../src/config.js'
import type { Db } from '../../src/db/database.js'
import { queueSignInMessage } from '../../src/modules/messages/message.service.js'
import type { PaymentGateway } from '../../src/modules/payments/payment-gateway.js'
import { buildPortalApp, type PortalApp } from '../../src/portal/app.js'
import type { Clock } from '../../src/shared/time.js'
import { checkEveryResponse } from './test-app.js'

/** The Origin the portal's own pages send (app.inject's default host). */
export const PORTAL_ORIGIN = 'http://localhost:80'

export interface PortalTestContext {
  portal: PortalApp
  /** Every sign-in code the portal delivered, newest last: what the insured's e-mail would carry. */
  delivered: { customerId: number; code: string; now: Date }[]
}

/**
 * The portal app over a partner test app's database (`over`, declared before it) and its card
 * gateway, its responses checked against the portal's OpenAPI document; the codes it delivers
 * recorded in `delivered`.
 */
export function portalOver(
  over: () => { config: Readonly<Config>; db: Db; app?: { gateway: PaymentGateway | null } },
  clock: Clock,
): PortalTestContext {
  const ctx = { delivered: [] } as unknown as PortalTestContext
  beforeAll(async () => {
    const { config, db, app } = over()
    ctx.portal = checkEveryResponse(
      await buildPortalApp({
        config,
        db,
        clock,
        gateway: app?.gateway ?? null,
        logger: false,
        staticRoot: null,
        signIn: {
          // The real message, and the code seen as the insured's e-mail would show it.
          deliver: async (trx, message) => {
            await queueSignInMessage(trx, message)
            ctx.delivered.push(message)
          },
        },
      }),
    )
    await ctx.portal.ready()
  })
  afterAll(async () => {
    await ctx.portal?.close()
  })
  return ctx
}

/** The `amparo_portal=…` cookie a sign-in answered. */
export function portalCookie(setCookie: unknown): string {
  const token = /amparo_portal=([^;]*)/.exec(String(setCookie))?.[1]
  if (!token) throw new Error(`no portal cookie in ${String(setCookie)}`)
  return `amparo_portal=${token}`
}
