import type { Kysely } from 'kysely'
import unhomoglyph from 'unhomoglyph'

/**
 * Device keys become skeletons (docs/decisions.md, Devices): every script's digits read as ASCII
 * ones, letters that look like ASCII ones as those, O as 0 and I as 1. Each stored key is read
 * again from itself (it already holds the serial's letters and digits, uppercase), so a device
 * protected today stays protected even where its serial, as written, would now be refused; a key
 * with nothing to read (`序列`) is left as it is, and no new serial can reach it. Where two keys
 * become one, the protection whose holder is still active by status keeps it, the oldest first, as
 * when protections were first recorded; the other holder stays active but unrecorded. Claims'
 * device keys (repeat_device) are read again the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
  const untyped = db as Kysely<any>
  const protections: Protection[] = await untyped
    .selectFrom('device_protections as dp')
    .leftJoin('subscriptions as s', 's.id', 'dp.subscription_id')
    .leftJoin('annual_plans as ap', 'ap.id', 'dp.annual_plan_id')
    .select([
      'dp.device_key',
      'dp.subscription_id',
      'dp.annual_plan_id',
      'dp.created_at',
      's.status',
      'ap.status as plan_status',
    ])
    .execute()
  const groups = new Map<string, Protection[]>()
  for (const row of protections) {
    const key = skeleton(row.device_key) || row.device_key
    groups.set(key, [...(groups.get(key) ?? []), row])
  }
  const gone: string[] = []
  const kept: Record<string, unknown>[] = []
  for (const [key, rows] of groups) {
    if (rows.length === 1 && rows[0]?.device_key === key) continue
    rows.sort(
      (a, b) => Number(active(b)) - Number(active(a)) || instant(a.created_at) - instant(b.created_at),
    )
    const [winner] = rows as [Protection]
    gone.push(...rows.map((row) => row.device_key))
    kept.push({
      device_key: key,
      subscription_id: winner.subscription_id,
      annual_plan_id: winner.annual_plan_id,
      created_at: winner.created_at,
    })
  }
  for (let i = 0; i < gone.length; i += 500)
    await untyped
      .deleteFrom('device_protections')
      .where('device_key', 'in', gone.slice(i, i + 500))
      .execute()
  for (let i = 0; i < kept.length; i += 500)
    await untyped
      .insertInto('device_protections')
      .values(kept.slice(i, i + 500))
      .execute()

  const claims: { id: number; device_key: string | null; second_device_key: string | null }[] = await untyped
    .selectFrom('claims')
    .select(['id', 'device_key', 'second_device_key'])
    .where((eb) => eb.or([eb('device_key', 'is not', null), eb('second_device_key', 'is not', null)]))
    .execute()
  const reread = (key: string | null) => (key === null ? null : skeleton(key) || key)
  for (const claim of claims) {
    const first = reread(claim.device_key)
    const second = reread(claim.second_device_key)
    if (first === claim.device_key && second === claim.second_device_key) continue
    await untyped
      .updateTable('claims')
      .set({ device_key: first, second_device_key: second })
      .where('id', '=', claim.id)
      .execute()
  }
}

/** The keys' earlier forms are not kept: they stay skeletons, letters and digits as keys were. */
export async function down(): Promise<void> {}

interface Protection {
  device_key: string
  subscription_id: number | null
  annual_plan_id: number | null
  /** UTC ISO instant (db/postgres.ts reads timestamptz as one too). */
  created_at: string
  status: string | null
  plan_status: string | null
}

const instant = (value: string) => new Date(value).getTime()

const active = (row: Protection) =>
  ['pending', 'pago'].includes(row.status ?? '') ||
  ['awaiting_payment', 'paid', 'protected'].includes(row.plan_status ?? '')

// The device key of this migration's day, frozen: the live one may change after it (the
// confusables are the library's, pinned by the lockfile).
const lookAlike = (char: string) => unhomoglyph(char).replace(/l/g, '1').replace(/rn/g, 'M')

function asciiDigit(digit: string): string {
  const code = digit.codePointAt(0) as number
  let start = code
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--
  return String((code - start) % 10)
}

function skeleton(input: string): string {
  const plain = input
    .replace(/(?![0-9])\p{Nd}/gu, asciiDigit)
    .normalize('NFKC')
    .replace(/[\p{White_Space}\p{P}\p{Cc}\p{Cf}$+<=>^`|~]/gu, '')
  let key = ''
  for (const char of plain) key += char < '\x80' ? char : lookAlike(char)
  key = key.toUpperCase().replace(/O/g, '0').replace(/I/g, '1')
  return /^[A-Z0-9]+$/.test(key) ? key : ''
}
