import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import type { Db } from '../../src/db/database.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { type EventType, recordEvent } from '../../src/modules/events/event.service.js'
import { type Bench, check, f, log, verdict } from './load.js'
import { startProcess, stop, until } from './proc.js'

// `--messages`: N events that each make a message to one of the demo's insured (README, Messages to
// the insured), half a contract in force (its certificate PDF rendered and attached) and half a claim
// opened, sent by one `amparo worker` (dist/) to an SMTP server in this process.

const TARGET_RATE = 50

/** An SMTP server that takes every message: its receipt time by Message-ID, and how many had a PDF. */
async function startSmtp() {
  const received = new Map<string, number>()
  let withPdf = 0
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('latin1')
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(text)?.[1]
        if (id) received.set(id, performance.now())
        if (text.includes('application/pdf')) withPdf += 1
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return { url: `smtp://127.0.0.1:${port}`, received, withPdf: () => withPdf, close }
}

/** `count` events for a subscription in force of the demo and its customer, committed 500 at a time. */
async function addEvents(db: Db, count: number) {
  const contract = await db
    .selectFrom('subscriptions as s')
    .innerJoin('plans as p', 'p.id', 's.plan_id')
    .innerJoin('models as m', 'm.id', 's.model_id')
    .select(['s.id', 's.partner_id', 's.customer_id', 's.policy_number', 'p.name as plan', 'm.name as model'])
    .where('s.status', '=', 'pago')
    .orderBy('s.id')
    .executeTakeFirst()
  check(contract, 'the demo should have a subscription in force')
  const { id, partner_id: partnerId, customer_id, policy_number, plan, model } = contract
  const customer = { id: customer_id }
  for (let i = 0; i < count; i += 500)
    await retryingTransaction(db, async (trx) => {
      const now = new Date().toISOString()
      for (let n = i; n < Math.min(count, i + 500); n++) {
        const [type, object]: [EventType, object] =
          n % 2
            ? [
                'claim.opened',
                { id: n, number: `SIN-BENCH-${n}`, type: 'robbery', customer, required_documents: [] },
              ]
            : [
                'subscription.activated',
                {
                  id,
                  object: 'subscription',
                  customer,
                  policy_number,
                  plan: { name: plan },
                  model: { name: model },
                },
              ]
        await recordEvent(trx, { partnerId, type, object, now })
      }
    })
}

export async function messagesBench({ cli, env, logFile }: Bench, db: Db, count: number) {
  const smtp = await startSmtp()
  log(`Recording ${f(count)} events, each a message (half with a certificate PDF)…`)
  await addEvents(db, count)
  log('One `amparo worker` writing and sending them…')
  const started = performance.now()
  const mail = { AMPARO_SMTP_URL: smtp.url, AMPARO_MAIL_FROM: 'Amparo <avisos@amparo.example>' }
  const worker = startProcess([cli, 'worker'], { ...env, ...mail }, logFile)
  await until(() => smtp.received.size >= count, 600, 'the messages')
  const times = [...smtp.received.values()]
  const [first, last] = [Math.min(...times), Math.max(...times)]
  const rate = count / ((last - started) / 1000)
  const steady = (count - 1) / ((last - first) / 1000)
  log(
    `  ${f(count)} received in ${f((last - started) / 1000, 1)} s from the worker's spawn: ${f(rate)} a second`,
  )
  log(`  first to last receipt: ${f(steady)} a second; ${f(smtp.withPdf())} with the certificate attached`)
  check(smtp.withPdf() >= count / 2, 'every contract-in-force message should carry its certificate')
  log(verdict(rate >= TARGET_RATE, `${f(rate)} messages/s ≥ ${TARGET_RATE} (spawn to the last receipt)`))
  await stop(worker)
  await smtp.close()
}
