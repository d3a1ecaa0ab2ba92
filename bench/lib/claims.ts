import type { Db } from '../../src/db/database.js'
import type { ClaimStatus } from '../../src/db/tables/claim.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { formatDate } from '../../src/shared/time.js'
import { type Call, call, check, maker, type Session } from './load.js'
import { cpuUs, memoryOf } from './proc.js'
import { inBatches, type PartnerData } from './seed.js'

// The claims scenario (--claims): claims seeded over the seeded subscriptions, then (e) openings,
// (f) pages of GET /claims beside (b)'s pages of subscriptions, (g) 10 MiB uploads.

const DAY = 86_400_000
const THEFT = 'Celular roubado na saída do metrô.'
// The seeded claims' statuses in turn: every one, settled twice as often.
const STATUSES = 'settled settled denied withdrawn documents_pending under_review approved'.split(' ')

/**
 * `count` claims over the partners (as their subscriptions), each on its own subscription among the
 * oldest, opened in 2025 (this year's numbers stay free for openings); then installment 1 paid for
 * the partners' newest `pago` subscriptions still in force, the ones (e) opens claims on.
 */
export async function seedClaims(db: Db, partners: PartnerData[], count: number, timeZone: string) {
  const total = partners.reduce((n, p) => n + p.subscriptions, 0)
  const today = formatDate(new Date().toISOString(), timeZone)
  let seq = 0
  const openable = new Map<number, number[]>()
  const claims = new Map<number, number>()
  for (const partner of partners) {
    // The claim's columns copied from its subscription.
    const subscriptions = await db
      .selectFrom('subscriptions as s')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .select(['s.id as subscription_id', 's.plan_id', 's.customer_id', 'c.document as customer_document'])
      .select(['s.model_id', 's.serial_number', 's.serial_number as device_key', 's.lmi', 's.franchise'])
      .where('s.partner_id', '=', partner.id)
      .where('s.id', '>=', partner.firstId)
      .orderBy('s.id')
      .limit(Math.round((count * partner.subscriptions) / total))
      .execute()
    claims.set(partner.id, subscriptions.length)
    const claim = (n: number) => {
      const s = subscriptions[n] as (typeof subscriptions)[number]
      seq += 1
      const status = STATUSES[seq % STATUSES.length] as ClaimStatus
      const at = new Date(Date.UTC(2025, 0, 1) + seq * 3_000_000).toISOString()
      const [approved, denied] = [['settled', 'approved'].includes(status), status === 'denied']
      return {
        ...s,
        number: `SIN-2025-${String(seq).padStart(6, '0')}`,
        partner_id: partner.id,
        partner_seq: n + 1, // the demo opens no claims
        type: seq % 3 ? ('robbery' as const) : ('accidental_damage' as const),
        status,
        occurred_at: at,
        description: THEFT,
        police_report_number: seq % 3 ? `BO-${seq}` : null,
        outcome: approved ? ('approved' as const) : denied ? ('denied' as const) : null,
        settlement_method: approved ? ('indemnity' as const) : null,
        approved_amount: approved ? s.lmi : null,
        payable_amount: approved ? s.lmi - s.franchise : null,
        reason_code: denied ? ('not_covered' as const) : null,
        note: denied ? 'Fora da cobertura.' : null,
        decided_at: approved || denied ? at : null,
        settlement_reference: status === 'settled' ? `PIX-${seq}` : null,
        settled_at: status === 'settled' ? at : null,
        // As the upload of its last document leaves it: the queue's deadline (claim-deadline.rules.ts).
        deadline_started_at: status === 'documents_pending' ? null : at,
        created_at: at,
        updated_at: at,
      }
    }
    await inBatches(subscriptions.length, claim, (rows) =>
      retryingTransaction(db, (trx) => trx.insertInto('claims').values(rows).execute()),
    )
    // The partner's counter, as insertClaim keeps it.
    const counter = { partner_id: partner.id, total: subscriptions.length }
    await retryingTransaction(db, (trx) => trx.insertInto('partner_claim_counts').values(counter).execute())
    const inForce = await db
      .selectFrom('subscriptions')
      .select(['id', 'monthly_premium', 'created_at'])
      .where('partner_id', '=', partner.id)
      // Neither the demo's contract nor one with a seeded claim.
      .where('id', '>', subscriptions.at(-1)?.subscription_id ?? partner.firstId - 1)
      .where('status', '=', 'pago')
      .where('ends_on', '>', today)
      .where('created_at', '<', new Date(Date.now() - 2 * DAY).toISOString())
      .orderBy('id', 'desc')
      .limit(20_000)
      .execute()
    const paid = (n: number) => {
      const s = inForce[n] as (typeof inForce)[number]
      return {
        subscription_id: s.id,
        number: 1,
        amount: s.monthly_premium,
        status: 'paid' as const,
        paid_at: s.created_at,
        due_date: formatDate(s.created_at, timeZone),
        failed_attempts: 0,
        created_at: s.created_at,
      }
    }
    await inBatches(inForce.length, paid, (rows) =>
      retryingTransaction(db, (trx) => trx.insertInto('installments').values(rows).execute()),
    )
    const pool = inForce.map((s) => s.id)
    openable.set(partner.id, pool)
  }
  return { openable, claims, total: seq }
}

/** (e) a theft claim a day ago on the next subscription of the pool; (f) a random page of claims. */
export function claimMakers(sessions: Session[], pool: Map<number, number[]>, counts: Map<number, number>) {
  const yesterday = `${formatDate(new Date(Date.now() - DAY).toISOString(), 'America/Sao_Paulo')} 12:00:00`
  const theft = (p: PartnerData) => {
    const id = pool.get(p.id)?.pop()
    const police_report = { number: `BO-${id}` }
    return { subscription_id: id, type: 'robbery', occurred_at: yesterday, description: THEFT, police_report }
  }
  const pages = (p: PartnerData) => Math.max(1, Math.ceil((counts.get(p.id) ?? 0) / 15))
  return {
    e: maker(sessions, '/claims', theft),
    f: maker(sessions, (p) => `/claims?page=${1 + Math.floor(Math.random() * pages(p))}&per_page=15`),
  }
}

/**
 * (g) `times` uploads of a 10 MiB PDF, one at a time, each to a claim opened for it: the answer's
 * time at the client, the server's CPU time for it (the machine may be shared: the figure checked),
 * and how far the server's peak memory rose above its memory before the first (after each, and overall).
 */
export async function uploadBench(port: number, pid: number, open: () => Call, times: number) {
  const bytes = 10 * 1024 * 1024
  const boundary = '----AmparoBench'
  const part = (headers: string) => `--${boundary}\r\nContent-Disposition: form-data; ${headers}\r\n\r\n`
  const head = `${part('name="kind"')}invoice\r\n${part('name="file"; filename="nota-fiscal.pdf"\r\nContent-Type: application/pdf')}`
  const body = (file: Buffer) =>
    Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)])
  const large = Buffer.alloc(bytes, 0x20)
  large.write('%PDF-1.4\n')
  const [warming, measured] = [body(Buffer.from('%PDF-1.4\n')), body(large)]
  const runs: { ms: number; cpuMs: number; growthMb: number }[] = []
  let before = 0
  // The first, of a small file, only loads what an upload needs (multipart, file-type): not counted.
  for (let i = -1; i < times; i++) {
    if (i === 0) before = memoryOf(pid).rssMb
    const claim = open()
    const opened = await call(port, claim.path, claim.session.token, claim.body)
    check(opened.status === 201, `claim for the upload: ${opened.status} ${opened.text}`)
    const [cpu, started] = [cpuUs([pid]), performance.now()]
    const answer = await fetch(`http://127.0.0.1:${port}/claims/${opened.json.id}/documents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${claim.session.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: i < 0 ? warming : measured,
    })
    await answer.text()
    check(answer.status === 201, `upload: ${answer.status}`)
    const [ms, cpuMs] = [performance.now() - started, (cpuUs([pid]) - cpu) / 1000]
    if (i >= 0) runs.push({ ms, cpuMs, growthMb: memoryOf(pid).hwmMb - before })
  }
  return { runs, growthMb: memoryOf(pid).hwmMb - before, fileMb: bytes / 1024 / 1024 }
}
