import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { uniqueImei } from './helpers/bodies.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { galaxyOf, type Seller, seller, send } from './helpers/world.js'

// SQLite's file may grow no further (`max_page_count`): a contract that needs a new page fails
// with SQLITE_FULL. On PostgreSQL a full disk is the server's, not this process's to provoke.

const ctx = useTestApp()
let s: Seller
let galaxy: number

beforeAll(async () => {
  galaxy = await galaxyOf(ctx)
  s = await seller(ctx)
})

describe.skipIf(Boolean(process.env.DATABASE_URL))('when the disk is full', () => {
  it('answers a contract that finds no room 503, and none 500', async () => {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(ctx.db)
    await sql.raw(`pragma max_page_count = ${Number(rows[0]?.page_count)}`).execute(ctx.db)
    const body = { plan_id: s.planId, customer_id: s.customerId, model_id: galaxy }
    const statuses: number[] = []
    // Ten contracts a turn, committed together, until the file's free space runs out.
    for (let round = 0; round < 50 && !statuses.includes(503); round++) {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          send(ctx, s, 'POST', '/subscriptions', { ...body, serial_number: uniqueImei() }),
        ),
      )
      for (const response of responses) {
        statuses.push(response.statusCode)
        if (response.statusCode === 503)
          expect(response.json()).toEqual(
            expectedError(response, 'service_unavailable', { message: expect.any(String) }),
          )
      }
    }
    expect(statuses).toContain(503)
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([])
  })
})
