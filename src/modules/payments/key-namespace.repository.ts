import type { Reader, Trx } from '../../db/database.js'

const NAME = 'gateway_key_namespace'

/** Keeps `made` as the deployment's gateway key namespace unless one is kept already (the first insert wins). */
export async function keepKeyNamespace(trx: Trx, made: string): Promise<void> {
  await trx
    .insertInto('settings')
    .values({ name: NAME, value: made })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
}

/** The deployment's gateway key namespace, once kept. */
export async function keyNamespace(db: Reader): Promise<string> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('name', '=', NAME)
    .executeTakeFirstOrThrow()
  return row.value
}
