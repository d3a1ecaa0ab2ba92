import nodemailer from 'nodemailer'

// The mail server, through Nodemailer's pooled SMTP transport (AMPARO_SMTP_URL: smtp:// or
// smtps://, credentials allowed). Its errors are recorded by their server answer or code, never
// with the message's content or the URL's password.

export interface OutgoingMail {
  /** The full `Message-ID` header, `<…@…>`. */
  messageId: string
  from: string
  to: string
  subject: string
  text: string
  html: string
  attachments: { filename: string; content: Buffer; contentType: string }[]
}

export type SendResult = { ok: true; response: string } | { ok: false; error: string }

export interface MailTransport {
  send(mail: OutgoingMail): Promise<SendResult>
  close(): void
}

/** Connections kept open to the server: enough for ≥ 50 messages a second (docs/benchmarks.md). */
const POOL_CONNECTIONS = 5

export function smtpTransport(smtpUrl: string): MailTransport {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    pool: true,
    maxConnections: POOL_CONNECTIONS,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  })
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({ ...mail, headers: { 'Content-Language': 'pt-BR' } })
        return { ok: true, response: String(info.response ?? '').slice(0, 500) }
      } catch (error) {
        return { ok: false, error: describeError(error) }
      }
    },
    close: () => transport.close(),
  }
}

function describeError(error: unknown): string {
  const e = error as { response?: string; code?: string; message?: string }
  return String(e.response ?? (e.code ? `connection failed (${e.code})` : (e.message ?? 'failed'))).slice(
    0,
    500,
  )
}
