import { Type } from 'typebox'

// The insured's portal's own listener (README, Portal do segurado), read apart from the API's, as
// the console's: its default depends on the environment, and it may be off. Its public address,
// AMPARO_PORTAL_URL, is the messages' (config-mail.ts `portalUrl`): the base of their sign-in links.

export const DEFAULT_PORTAL_PORT = 3002

export const PortalEnv = Type.Object({
  AMPARO_PORTAL_HOST: Type.String({ default: '127.0.0.1' }),
  // No default: unset means 3002 in test and no portal in production (portalSettings).
  AMPARO_PORTAL_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
})

interface PortalEnvValues {
  AMPARO_PORTAL_HOST: string
  AMPARO_PORTAL_PORT?: number
  AMPARO_ENV: 'test' | 'production'
}

/**
 * AMPARO_PORTAL_HOST/PORT, by default 127.0.0.1:3002 in test; in production only when the port is
 * set. Null: no portal. `portSet`: a start that cannot bind a chosen port fails; the default one,
 * when taken, only leaves the portal off.
 */
export type PortalSettings = { host: string; port: number; portSet: boolean } | null

export function portalSettings(env: PortalEnvValues): PortalSettings {
  const port = env.AMPARO_PORTAL_PORT
  if (port === 0 || (port === undefined && env.AMPARO_ENV === 'production')) return null
  return { host: env.AMPARO_PORTAL_HOST, port: port ?? DEFAULT_PORTAL_PORT, portSet: port !== undefined }
}
