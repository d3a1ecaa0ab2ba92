// Checked by `npx tsc --noEmit` (tsconfig includes test/), not run: each `@ts-expect-error` marks a
// call that must not compile, and tsc fails once one does (src/db/README.md, Transactions).
import type { KyselyPlugin } from 'kysely'
import { expectTypeOf } from 'vitest'
import type { Db, Reader, Trx } from '../../src/db/database.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { closeAttempt, findOpenAttempt } from '../../src/modules/payments/payment.repository.js'

declare const db: Db
declare const trx: Trx
declare const plugin: KyselyPlugin

// A write takes the one helper's transaction: not the database, not a transaction opened otherwise.
// @ts-expect-error a write given the database would autocommit
void closeAttempt(db, 1, '2026-12-07T12:00:00.000Z')
// @ts-expect-error a transaction that is not retryingTransaction's is not a Trx
void db.transaction().execute((plain) => closeAttempt(plain, 1, '2026-12-07T12:00:00.000Z'))
void retryingTransaction(db, (trx) => closeAttempt(trx, 1, '2026-12-07T12:00:00.000Z'))

// The database has no write builder: a write goes through the one helper's transaction.
// @ts-expect-error a write on the database would autocommit
void db.insertInto('partners')
// @ts-expect-error nor an update
void db.updateTable('partners')
// @ts-expect-error nor a delete
void db.deleteFrom('partners')
// @ts-expect-error the database seen through a plugin is still the database
void db.withPlugin(plugin).insertInto('partners')
void retryingTransaction(db, (trx) => trx.deleteFrom('partners').where('id', '=', 1).execute())

// A read takes either: in a transaction it sees that transaction's writes.
void findOpenAttempt(db, { installmentId: 1 })
void findOpenAttempt(trx, { installmentId: 1 })

// What a read takes has no write builder and opens no transaction.
declare const reader: Reader
// @ts-expect-error a Reader cannot write
void reader.insertInto('settings')
// @ts-expect-error a Reader cannot open a transaction
void reader.transaction()

// A transaction is not the database: it opens no transaction of its own.
// @ts-expect-error no transaction inside a transaction
void retryingTransaction(trx, async () => {})

expectTypeOf<Db>().not.toExtend<Trx>()
expectTypeOf<Trx>().not.toExtend<Db>()
expectTypeOf<Db>().toExtend<Reader>()
expectTypeOf<Trx>().toExtend<Reader>()
