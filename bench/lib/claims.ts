import type { Db } from '../../src/db/database.js'
import type { ClaimStatus } from '../../src/modules/claims/claim.table.js'
import { formatDate } from '../../src/shared/time.js'
import { type Call, call, check, pick, type Session } from './load.js'
import { cpuUs, memoryOf } from './proc.js'
import { inBatches, type PartnerData } from './seed.js'

// The claims scenario (--claims): claims seeded over the seeded subscriptions, then (e) openings,
// (f) pages of GET /claims beside (b)'s pages of subscriptions, (g) 10 MiB uploads.

const DAY = 86_400_000
const STATUSES = [
  'settled',
  'settled',
  'denied',
  'withdrawn',
  'documents_pending',
  'under_review',
  'approved',
]

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
    const subscriptions = await db
      .selectFrom('subscriptions as s')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .select(['s.id', 's.plan_id', 's.customer_id', 'c.document', 's.model_id', 's.serial_number'])
      .select(['s.lmi', 's.franchise'])
      .where('s.partner_id', '=', partner.id)
      .where('s.id', '>=', partner.firstId)
      .orderBy('s.id')
      .limit(Math.round((count * partner.subscriptions) / total))
      .execute()
    claims.set(partner.id, subscriptions.length)
    // Numbered after the partner's claims so far, its counter set to the last (as insertClaim does).
    const counted = await db
      .selectFrom('partner_claim_counts')
      .select('total')
      .where('partner_id', '=', partner.id)
      .executeTakeFirst()
    const before = Number(counted?.total ?? 0)
    const claimRow = (n: number) => {
      const s = subscriptions[n] as (typeof subscriptions)[number]
      seq += 1
      const status = STATUSES[seq % STATUSES.length] as ClaimStatus
      const at = new Date(Date.UTC(2025, 0, 1) + seq * 3_000_000).toISOString()
      const [approved, denied] = [['settled', 'approved'].includes(status), status === 'denied']
      return {
        number: `SIN-2025-${String(seq).padStart(6, '0')}`,
        partner_id: partner.id,
        partner_seq: before + n + 1,
        subscription_id: s.id,
        plan_id: s.plan_id,
        customer_id: s.customer_id,
        customer_document: s.document,
        model_id: s.model_id,
        serial_number: s.serial_number,
        device_key: s.serial_number,
        type: seq % 3 ? ('robbery' as const) : ('accidental_damage' as const),
        status,
        occurred_at: at,
        description: 'Celular roubado na saída do metrô.',
        police_report_number: seq % 3 ? `BO-${seq}` : null,
        lmi: s.lmi,
        franchise: s.franchise,
        outcome: approved ? ('approved' as const) : denied ? ('denied' as const) : null,
        settlement_method: approved ? ('indemnity' as const) : null,
        approved_amount: approved ? s.lmi : null,
        payable_amount: approved ? s.lmi - s.franchise : null,
        reason_code: denied ? ('not_covered' as const) : null,
        note: denied ? 'Fora da cobertura.' : null,
        decided_at: approved || denied ? at : null,
        settlement_reference: status === 'settled' ? `PIX-${seq}` : null,
        settled_at: status === 'settled' ? at : null,
        created_at: at,
        updated_at: at,
      }
    }
    await inBatches(subscriptions.length, claimRow, (rows) => db.insertInto('claims').values(rows).execute())
    const last = before + subscriptions.length
    await db
      .insertInto('partner_claim_counts')
      .values({ partner_id: partner.id, total: last })
      .onConflict((oc) => oc.column('partner_id').doUpdateSet({ total: last }))
      .execute()
    const inForce = await db
      .selectFrom('subscriptions')
      .select(['id', 'monthly_premium', 'created_at'])
      .where('partner_id', '=', partner.id)
      // Neither the demo's contract nor one with a seeded claim.
      .where('id', '>', subscriptions.at(-1)?.id ?? partner.firstId - 1)
      .where('status', '=', 'pago')
      .where('ends_on', '>', today)
      .where('created_at', '<', new Date(Date.now() - 2 * DAY).toISOString())
      .orderBy('id', 'desc')
      .limit(20_000)
      .execute()
    const paid = (n: number) => {
      const s = inForce[n] as (typeof inForce)[number]
      const first = { number: 1, amount: s.monthly_premium, status: 'paid' as const, paid_at: s.created_at }
      const unset = { next_attempt_on: null, last_decline_code: null, locked_until: null }
      const due = formatDate(s.created_at, timeZone)
      return {
        ...first,
        ...unset,
        subscription_id: s.id,
        due_date: due,
        failed_attempts: 0,
        created_at: s.created_at,
      }
    }
    await inBatches(inForce.length, paid, (rows) => db.insertInto('installments').values(rows).execute())
    const pool = inForce.map((s) => s.id)
    openable.set(partner.id, pool)
  }
  return { openable, claims }
}

/** (e) a theft claim a day ago on the next subscription of the pool; (f) a random page of claims. */
export function claimMakers(
  sessions: Session[],
  openable: Map<number, number[]>,
  claims: Map<number, number>,
) {
  const yesterday = `${formatDate(new Date(Date.now() - DAY).toISOString(), 'America/Sao_Paulo')} 12:00:00`
  return {
    e: (): Call => {
      const session = pick(sessions)
      const id = openable.get(session.partner.id)?.pop()
      const body = JSON.stringify({
        subscription_id: id,
        type: 'robbery',
        occurred_at: yesterday,
        description: 'Celular roubado na saída do metrô.',
        police_report: { number: `BO-${id}` },
      })
      return { method: 'POST', path: '/claims', session, body }
    },
    f: (): Call => {
      const session = pick(sessions)
      const pages = Math.max(1, Math.ceil((claims.get(session.partner.id) ?? 0) / 15))
      return {
        method: 'GET',
        path: `/claims?page=${1 + Math.floor(Math.random() * pages)}&per_page=15`,
        session,
      }
    },
  }
}

/**
 * (g) `times` uploads of a 10 MiB PDF, one at a time, each to a claim opened for it: the answer's
 * time at the client, the server's CPU time for it (the machine may be shared: the figure checked),
 * and how far the server's peak memory rose above its memory before the first (after each, and overall).
 */
export async function uploadBench(port: number, server: { pid: number }, open: () => Call, times: number) {
  const bytes = 10 * 1024 * 1024
  const boundary = '----AmparoBench'
  const part = (headers: string) => `--${boundary}\r\nContent-Disposition: form-data; ${headers}\r\n\r\n`
  const head = `${part('name="kind"')}invoice\r\n${part('name="file"; filename="nota-fiscal.pdf"\r\nContent-Type: application/pdf')}`
  const body = (file: Buffer) =>
    Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)])
  const [small, large] = [Buffer.from('%PDF-1.4\n'), Buffer.alloc(bytes, 0x20)]
  large.write('%PDF-1.4\n')
  const [warming, measured] = [body(small), body(large)]
  const runs: { ms: number; cpuMs: number; growthMb: number }[] = []
  let before = 0
  // The first, of a small file, only loads what an upload needs (multipart, file-type): not counted.
  for (let i = -1; i < times; i++) {
    if (i === 0) before = memoryOf(server.pid).rssMb
    const claim = open()
    const opened = await call(port, claim.path, claim.session.token, claim.body)
    check(opened.status === 201, `claim for the upload: ${opened.status} ${opened.text}`)
    const [cpu, started] = [cpuUs([server.pid]), performance.now()]
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
    const [ms, cpuMs] = [performance.now() - started, (cpuUs([server.pid]) - cpu) / 1000]
    if (i >= 0) runs.push({ ms, cpuMs, growthMb: memoryOf(server.pid).hwmMb - before })
  }
  return { runs, growthMb: memoryOf(server.pid).hwmMb - before, fileMb: bytes / 1024 / 1024 }
}
