import BetterSqlite3 from 'better-sqlite3'
import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { sandboxWith } from './helpers/gateways.js'
import { useTestApp } from './helpers/test-app.js'
import { contractSubscription, galaxyOf, seller, send } from './helpers/world.js'

// Another connection holds SQLite's write lock (an `amparo worker`, a second API process, a backup):
// every write of the service waits for it asynchronously, through retryingTransaction, and the
// process keeps answering whatever needs no write. A write left outside the helper would wait in a
// busy handler that sleeps with the event loop stopped.

// SQLite only: PostgreSQL has no database-wide write lock.
describe.skipIf(Boolean(process.env.DATABASE_URL))('while another connection holds the write lock', () => {
  let customerCreated = () => {}
  let lockTaken = () => {}
  const atGateway = new Promise<void>((resolve) => {
    customerCreated = resolve
  })
  const locked = new Promise<void>((resolve) => {
    lockTaken = resolve
  })
  // The card payment's gateway customer is created while nothing holds the lock; the lock is taken
  // before the gateway answers, so that the payment's next write (its gateway customer) meets it.
  const gateway = sandboxWith({})
  const createCustomer = gateway.createCustomer
  gateway.createCustomer = async (...args) => {
    customerCreated()
    await locked
    return createCustomer(...args)
  }
  const ctx = useTestApp({ onDisk: true, gateway })

  it('reads and /health answer meanwhile, and a card payment completes once it is released', async () => {
    const galaxy = await galaxyOf(ctx)
    const s = await seller(ctx, 'own')
    const { id } = await contractSubscription(ctx, s, galaxy)
    const card = { creditCard: { number: '4111111111111111', expiry: '1230', cvv: '9876' } }
    let paid: LightMyRequestResponse | undefined
    const payment = send(ctx, s, 'POST', `/subscriptions/${id}/payment`, card).then((response) => {
      paid = response
      return response
    })
    await atGateway
    const other = new BetterSqlite3(ctx.env.AMPARO_SQLITE_FILE as string)
    try {
      other.exec('BEGIN IMMEDIATE')
      lockTaken()
      const health = await ctx.app.inject({ method: 'GET', url: '/health' })
      expect(health.statusCode).toBe(200)
      const read = await send(ctx, s, 'GET', `/subscriptions/${id}`)
      expect(read.statusCode).toBe(200)
      expect(read.json().status).not.toBe('pago')
      // Both answered while the payment still waits for the lock.
      expect(paid).toBeUndefined()
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
    }
    const response = await payment
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().status).toBe('pago')
  })
})
