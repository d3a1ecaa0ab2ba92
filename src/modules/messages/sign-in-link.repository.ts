import type { Trx } from '../../db/database.js'

export async function insertSignInLink(
  trx: Trx,
  row: { customer_id: number; token_hash: string; expires_at: string; created_at: string },
): Promise<void> {
  await trx.insertInto('sign_in_links').values(row).execute()
}

/**
 * Marks the unused, unexpired link with this hash used, and answers its customer; undefined when
 * there is none (unknown, used or expired). One statement: of two uses at once, one wins.
 */
export async function useSignInLink(trx: Trx, tokenHash: string, now: string): Promise<number | undefined> {
  const row = await trx
    .updateTable('sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('customer_id')
    .executeTakeFirst()
  return row?.customer_id
}
