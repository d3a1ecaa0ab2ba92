import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

/**
 * A real SMTP server in the test process: it parses what it receives (mailparser), or refuses
 * every message with a temporary failure while `refusing` is set. While `holding` is set it keeps
 * what it received but never answers the DATA command (a sender dying before it hears back).
 */
export async function smtpSink() {
  const received: ParsedMail[] = []
  const state = { refusing: false, holding: false }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!state.refusing) return callback()
      const error = Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 })
      callback(error)
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail)
          if (!state.holding) callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
