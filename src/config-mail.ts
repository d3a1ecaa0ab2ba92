import { type Static, Type } from 'typebox'
import { ConfigError } from './config-values.js'

// Messages to the insured (README, Messages to the insured): the mail server, the sender, and the
// portal address their sign-in links open.

export const MailEnv = Type.Object({
  AMPARO_SMTP_URL: Type.String({ default: '' }),
  AMPARO_MAIL_FROM: Type.String({ default: '' }),
  AMPARO_PORTAL_URL: Type.String({ default: '' }),
})

type MailEnvValues = Static<typeof MailEnv> & { AMPARO_ENV: 'test' | 'production' }

/** The portal's default address in test (its default listener). */
export const TEST_PORTAL_URL = 'http://127.0.0.1:3002'
const DEFAULT_FROM = 'Amparo <nao-responda@amparo.invalid>'

export interface MailSettings {
  /** `smtp://` or `smtps://`, credentials allowed; null: messages are kept, not sent. Never logged. */
  smtpUrl: string | null
  /** The `From` of every message, `Name <address>` or a bare address. */
  from: string
  /** The portal's public address (AMPARO_PORTAL_URL), the base of sign-in links; null when unknown. */
  portalUrl: string | null
}

export function mailSettings(env: MailEnvValues): MailSettings {
  const smtpUrl = env.AMPARO_SMTP_URL || null
  if (smtpUrl) {
    let url: URL | null = null
    try {
      url = new URL(smtpUrl)
    } catch {}
    // The message names the expected form only: the value may hold a password.
    if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || !url.hostname)
      throw new ConfigError(
        'Invalid AMPARO_SMTP_URL: expected smtp://[user:password@]host[:port] or smtps://…',
      )
  }
  const from = env.AMPARO_MAIL_FROM || DEFAULT_FROM
  if (!/^[^<>@\s]+@[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(from))
    throw new ConfigError('Invalid AMPARO_MAIL_FROM: expected an address, or "Name <address>"')
  const portal = env.AMPARO_PORTAL_URL.replace(/\/+$/, '')
  if (portal && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(portal))
    throw new ConfigError('Invalid AMPARO_PORTAL_URL: expected an absolute http(s) address')
  if (portal && env.AMPARO_ENV === 'production' && !portal.startsWith('https://'))
    throw new ConfigError('Invalid AMPARO_PORTAL_URL: production needs an https address')
  return {
    smtpUrl,
    from,
    portalUrl: portal || (env.AMPARO_ENV === 'test' ? TEST_PORTAL_URL : null),
  }
}
