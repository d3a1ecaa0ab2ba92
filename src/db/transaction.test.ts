import { scrypt } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/helpers/test-db.js'
import type { Trx } from './database.js'
import {
  ForeignWorkInTransaction,
  outsideTransaction,
  retryingTransaction,
  takeViolations,
} from './transaction.js'

// The test run's guard (test/helpers/transaction-guard.ts turns it on for every file).

let database: TestDatabase
const AT = '2026-12-07T12:00:00.000Z'

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database?.drop())

const brand = (trx: Trx, name: string) => trx.insertInto('brands').values({ name, created_at: AT }).execute()
const brandsNamed = (name: string) =>
  database.db.selectFrom('brands').select('name').where('name', '=', name).execute()

/** A transaction that writes, then does `other`: it must fail, undone, and the violation recorded. */
async function expectRefused(name: string, other: () => Promise<unknown>, what: string) {
  const run = retryingTransaction(database.db, async (trx) => {
    await brand(trx, name)
    await other()
  })
  await expect(run).rejects.toThrow(ForeignWorkInTransaction)
  expect(await brandsNamed(name)).toEqual([])
  const violations = takeViolations()
  expect(violations).toHaveLength(1)
  expect(violations[0]).toContain(what)
}

describe('a write transaction', () => {
  it('fails when it awaits scrypt', async () => {
    await expectRefused('Scrypt', () => promisify(scrypt)('secret', 'salt', 32), 'SCRYPTREQUEST')
  })

  it('fails when it reads a file', async () => {
    await expectRefused('File', () => readFile('package.json'), 'FSREQ')
  })

  it('fails when it connects to another server', async () => {
    const server = createServer((socket) => socket.end())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    const call = () =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy()
          resolve()
        }).on('error', reject)
      })
    try {
      await expectRefused('Network', call, 'TCPCONNECTWRAP')
    } finally {
      server.close()
    }
  })

  it('fails when it runs work that declares itself foreign (rendering)', async () => {
    await expectRefused('Render', async () => outsideTransaction('QR rendering'), 'QR rendering')
  })

  it('passes when it awaits only the database, promises and timers', async () => {
    const names = await Promise.all(
      ['Alfa', 'Beta', 'Gama'].map((name) =>
        retryingTransaction(database.db, async (trx) => {
          await brand(trx, name)
          await new Promise((resolve) => setImmediate(resolve))
          await new Promise((resolve) => setTimeout(resolve, 1))
          await Promise.resolve()
          return (await trx.selectFrom('brands').select('name').where('name', '=', name).executeTakeFirst())
            ?.name
        }),
      ),
    )
    expect(names).toEqual(['Alfa', 'Beta', 'Gama'])
    expect(takeViolations()).toEqual([])
  })

  it('leaves the same work alone before and after it', async () => {
    const hashed = await promisify(scrypt)('secret', 'salt', 32)
    await retryingTransaction(database.db, (trx) => brand(trx, 'Delta'))
    await readFile('package.json')
    expect(hashed).toHaveLength(32)
    expect(await brandsNamed('Delta')).toEqual([{ name: 'Delta' }])
  })
})
