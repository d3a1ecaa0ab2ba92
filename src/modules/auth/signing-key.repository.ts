import type { Reader, Trx } from '../../db/database.js'

/** Keeps `secret` as the generated signing key unless one is kept already (the first insert wins). */
export async function keepGeneratedKey(trx: Trx, secret: string, at: string): Promise<void> {
  await trx
    .insertInto('signing_keys')
    .values({ kid: 'generated-1', secret, created_at: at })
    .onConflict((oc) => oc.column('kid').doNothing())
    .execute()
}

/** The kept signing keys, newest first. */
export async function signingKeys(db: Reader) {
  return db.selectFrom('signing_keys').select(['kid', 'secret']).orderBy('created_at', 'desc').execute()
}
