import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { AdvanceBody, AdvancedClock, SandboxClock } from './sandbox-clock.schemas.js'
import { advanceClock, type PartnerJobs, showClock } from './sandbox-clock.service.js'

const tags = ['Sandbox']

/**
 * See the README's "Try the recurrence in the sandbox"; registered only in `AMPARO_ENV=test` (production answers 404). `jobs` are the
 * worker's partner jobs, which an advance runs at each day crossed.
 */
export const sandboxClockRoutes: FastifyPluginAsyncTypebox<{ jobs: PartnerJobs }> = async (app, { jobs }) => {
  const { db, config, clock } = app

  app.get(
    '/sandbox/clock',
    {
      schema: {
        tags,
        operationId: 'getSandboxClock',
        summary: 'Read the sandbox clock',
        description: `Test environment only. The partner's own clock: everything the partner does happens at
\`now\` (contract dates, due dates, coverage, refund rules, expiry, events' \`created_at\`), which is
real time plus \`advanced_by_seconds\`. Tokens, rate limits and idempotency keys keep real time.`,
        response: { 200: SandboxClock, ...errorResponses(401) },
      },
    },
    async (request) => showClock(db, request.partner.partnerId, clock, config.timeZone),
  )

  app.post(
    '/sandbox/clock/advance',
    {
      schema: {
        tags,
        operationId: 'advanceSandboxClock',
        summary: 'Advance the sandbox clock',
        description: `Test environment only. Moves the partner's clock forward by \`days\` (1–400) or \`hours\`
(1–9600), exactly one of them, and runs, for this partner only, every background job as it would
have run on each day crossed, in order: installments charged on their due dates, declines retried
1, 3 and 5 days later (the last one cancels the subscription), unpaid pending subscriptions
canceled on day 30, coverage of annual plans started and ended, refunds paid. Their events are
written at the partner's time of that day; webhooks go out in real time. \`jobs\` counts what ran.

The clock only moves forward; other partners' clocks never move. Another advance of the same
clock while this one runs → 409 \`clock_advancing\` with \`Retry-After\`: the seconds until that
advance's hold runs out (at most 30 s after its last day stored, should its process have died). Both or neither field, 0, a negative, a
non-integer or a value over its bound → 422 under that field. A failure midway → 500 whose
\`message\` says where the clock stopped: at the last day fully processed (\`GET /sandbox/clock\`
reads it too); advancing again carries on from there. Retried with the same \`Idempotency-Key\` after
its process died mid-way (once its hold has run out), the advance finishes the one it started, to the
offset that one was going to, never a second one; \`jobs\` then counts the days this call ran.`,
        body: AdvanceBody,
        response: {
          200: AdvancedClock,
          ...errorResponses(400, 401, 413, 415, 422, 'clock_advancing'),
        },
      },
    },
    async (request) =>
      advanceClock(request.partner.partnerId, request.body, {
        db,
        clock,
        timeZone: config.timeZone,
        jobs,
        log: request.log,
        key: request.idempotency?.key ?? null,
      }),
  )
}
