import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { CodeStatus, PaymentCodesTable } from '../../db/tables/payment-code.js'

export type PaymentCodeRow = Selectable<PaymentCodesTable>
export type CodeOf = { installmentId: number } | { annualPlanId: number }

const codesOf = (db: Reader, of: CodeOf) => {
  const query = db.selectFrom('payment_codes').selectAll()
  return 'installmentId' in of
    ? query.where('installment_id', '=', of.installmentId)
    : query.where('annual_plan_id', '=', of.annualPlanId)
}

/** The pending code of an installment or plan (at most one: a partial unique index), expired or not. */
export async function findPendingCode(db: Reader, of: CodeOf): Promise<PaymentCodeRow | undefined> {
  return codesOf(db, of).where('status', '=', 'pending').executeTakeFirst()
}

/** How many codes an installment or plan has had: the next one's operation key counts on from it. */
export async function countCodes(db: Reader, of: CodeOf): Promise<number> {
  return (await codesOf(db, of).execute()).length
}

/** Inserts a code unless another pending one of its item (or its PaymentIntent) is there: undefined then. */
export async function insertCode(
  trx: Trx,
  row: Insertable<PaymentCodesTable>,
): Promise<PaymentCodeRow | undefined> {
  return trx
    .insertInto('payment_codes')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst()
}

export async function findCodeByReference(
  db: Reader,
  reference: string,
): Promise<PaymentCodeRow | undefined> {
  return (await codeByReference(db, reference))[0]
}

// Read for every Stripe event about a PaymentIntent: compiled once (prepared()).
const codeByReference = prepared((db: Reader, reference: string) =>
  db.selectFrom('payment_codes').selectAll().where('gateway_reference', '=', reference),
)

export async function findCodeByImageToken(db: Reader, token: string): Promise<PaymentCodeRow | undefined> {
  return db.selectFrom('payment_codes').selectAll().where('image_token', '=', token).executeTakeFirst()
}

export async function findPartnerCode(
  db: Reader,
  partnerId: number,
  id: number,
): Promise<PaymentCodeRow | undefined> {
  return db
    .selectFrom('payment_codes')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Moves a code, by its id or its PaymentIntent (`gateway_reference`, unique), from one of `from`
 * to `to`: the row as moved, or undefined when it was elsewhere (or there is none).
 */
export async function transitionCode(
  trx: Trx,
  code: { id: number } | { reference: string },
  from: CodeStatus[],
  to: CodeStatus,
  at: string,
): Promise<PaymentCodeRow | undefined> {
  const update = trx
    .updateTable('payment_codes')
    .set({ status: to, updated_at: at, ...(to === 'paid' && { paid_at: at }) })
    .where('status', 'in', from)
  const one =
    'id' in code ? update.where('id', '=', code.id) : update.where('gateway_reference', '=', code.reference)
  return one.returningAll().executeTakeFirst()
}
