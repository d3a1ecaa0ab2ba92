import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Trx } from '../db/database.js'
import { retryingTransaction, type Transactor } from '../db/transaction.js'
import type { AppError } from '../shared/errors.js'
import { errorBody, errorReplayed } from './errors.js'
import { replayStored } from './idempotency.js'
import { storeAnswer } from './idempotency.repository.js'

// The request's write transaction (src/db/README.md): the one place a route opens it, and the one
// place an Idempotency-Key's answer commits with the change it answers for.

declare module 'fastify' {
  interface FastifyInstance {
    /** Called right after a request's write transaction commits; tests' fault injection only. */
    afterCommit: ((request: FastifyRequest) => void) | null
  }
}

export const unitOfWork = fp<{ afterCommit?: (request: FastifyRequest) => void }>(
  async (app, { afterCommit }) => {
    app.decorate('afterCommit', afterCommit ?? null)
  },
  { name: 'unit-of-work' },
)

type PayloadOf<R> = R extends { send(payload?: infer P): unknown } ? P : never

/** A request whose key lost to a concurrent one with the same key: that one's answer is replayed. */
class KeyTaken extends Error {}

/**
 * Runs `work` in the request's write transaction and answers what it returns, with the status set
 * on `reply`. With an Idempotency-Key the serialised answer is stored in the same transaction, so
 * no crash can commit the change without the answer its retry replays. A concurrent request with
 * the same key that commits first wins (PostgreSQL makes this one wait for it at the key; SQLite
 * runs one writer at a time): this one rolls back and replays that answer. Without a key, nothing
 * is added to the transaction.
 */
export async function commit<R extends FastifyReply>(
  reply: R,
  work: (trx: Trx) => Promise<PayloadOf<R>>,
): Promise<R> {
  const { request } = reply
  const { db, clock } = request.server
  const pending = request.idempotency
  if (!pending) {
    const body = await retryingTransaction(db, work)
    request.server.afterCommit?.(request)
    return reply.send(body) as R
  }
  const nowMs = clock.now().getTime()
  let payload: string
  try {
    payload = await retryingTransaction(db, async (trx) => {
      const body = String(reply.serialize(await work(trx)))
      const answer = { fingerprint: pending.prints[0] as string, status: reply.statusCode, body }
      if (!(await storeAnswer(trx, pending, answer, nowMs))) throw new KeyTaken()
      return body
    })
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error
    return (await replayStored(request, reply, pending)) as R
  }
  pending.settled = true
  request.server.afterCommit?.(request)
  return reply.type('application/json; charset=utf-8').send(payload) as R
}

export interface Answer {
  status: number
  body: unknown
}

/**
 * An error as its answer, the body the error handler would send for it; kept in English and sent
 * in the request's language (`sendStored`), so that a retry gets it in its own.
 */
export function refusal(request: FastifyRequest, error: AppError): Answer {
  return { status: error.statusCode, body: errorBody(error, String(request.id)) }
}

/**
 * For a flow that commits in several transactions (a card charge: claim, gateway call, settle; a
 * card update: the check, then each due charge): `transaction` opens the ones it writes in and,
 * with an Idempotency-Key, stores in the one that ends it the answer `answerOf` gives for its
 * outcome (null from `answerOf`: the flow goes on, nothing is stored yet; `transaction` null
 * without a key: the flow opens its own). `sendStored` sends that answer as it was kept, once
 * committed (null if none was). The flow's own claim answers concurrent requests (409
 * `payment_in_progress`) until then.
 */
export function settlement<T>(
  reply: FastifyReply,
  answerOf: (trx: Trx, outcome: T) => Promise<Answer | null>,
): { transaction: Transactor<T> | null; sendStored: () => FastifyReply | null } {
  const { request } = reply
  const pending = request.idempotency
  let stored: { status: number; body: string } | null = null
  if (!pending) return { transaction: null, sendStored: () => null }
  const { db, clock } = request.server
  const transaction: Transactor<T> = async (work) => {
    let ends = false
    const outcome = await retryingTransaction(db, async (trx) => {
      stored = null
      const outcome = await work(trx)
      const ending = await answerOf(trx, outcome)
      ends = ending !== null
      if (!ending) return outcome
      const { status, body } = ending
      const answer = {
        fingerprint: pending.prints[0] as string,
        status,
        body: String(reply.code(status).serialize(body)),
      }
      // Never undo a charge's record for a key another request answered: that answer is replayed.
      if (await storeAnswer(trx, pending, answer, clock.now().getTime())) stored = answer
      return outcome
    })
    if (!ends) return outcome
    pending.settled = stored !== null
    request.server.afterCommit?.(request)
    return outcome
  }
  const sendStored = () =>
    stored &&
    reply
      .code(stored.status)
      .type('application/json; charset=utf-8')
      .send(stored.status >= 400 ? errorReplayed(stored.body, request) : stored.body)
  return { transaction, sendStored }
}
