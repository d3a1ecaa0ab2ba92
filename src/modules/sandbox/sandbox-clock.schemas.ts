import { Type } from 'typebox'
import { DOCUMENTED_ONLY, named, Timestamp } from '../../http/http-schemas.js'
import { MAX_DAYS, MAX_HOURS } from './sandbox-clock.rules.js'

const Now = Timestamp('The partner’s clock: what it does happens at this time (service time zone).')
const AdvancedBy = Type.Integer({ minimum: 0, description: 'How far the clock is ahead of real time.' })

export const SandboxClock = named(
  'SandboxClock',
  Type.Object(
    { now: Now, advanced_by_seconds: AdvancedBy },
    { examples: [{ now: '2026-12-26 10:00:00', advanced_by_seconds: 2_678_400 }] },
  ),
)

export const AdvanceBody = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_DAYS, description: `Days to move forward, 1–${MAX_DAYS}.` }),
    ),
    hours: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_HOURS, description: `Hours to move forward, 1–${MAX_HOURS}.` }),
    ),
  },
  {
    // Exactly one of them, checked by the rules (sandbox-clock.rules.ts) so that its message names both.
    [DOCUMENTED_ONLY]: {
      oneOf: [
        { required: ['days'], properties: { days: { type: 'integer' } } },
        { required: ['hours'], properties: { hours: { type: 'integer' } } },
      ],
    },
    examples: [{ days: 31 }],
  },
)

const Counts = <K extends string>(keys: readonly K[], description: string) =>
  Type.Object(
    Object.fromEntries(keys.map((key) => [key, Type.Integer({ minimum: 0 })])) as Record<
      K,
      ReturnType<typeof Type.Integer>
    >,
    { description },
  )

export const AdvanceJobs = Type.Object(
  {
    days: Type.Integer({ minimum: 1, description: 'Days (or the part of one) the jobs ran for.' }),
    recurrence: Counts(
      ['charged', 'declined', 'refused', 'canceled', 'errors'] as const,
      'Installments charged on their due dates or retry days: paid, declined, refused after the last retry; subscriptions canceled by it; unexpected failures.',
    ),
    expiry: Counts(
      ['canceled'] as const,
      'Pending subscriptions canceled 30 days after contracting, unpaid.',
    ),
    subscription_end: Counts(
      ['expired'] as const,
      'Active subscriptions that expired once the month of their last installment had passed.',
    ),
    coverage: Counts(['protected', 'expired'] as const, 'Annual plans whose coverage started, or ended.'),
    refunds: Counts(
      ['refunded', 'retried', 'failed', 'errors'] as const,
      'Refunds of canceled annual plans paid through the gateway.',
    ),
  },
  { description: 'What the background jobs did for this partner over the days crossed.' },
)

export const AdvancedClock = Type.Object(
  { now: Now, advanced_by_seconds: AdvancedBy, jobs: AdvanceJobs },
  {
    examples: [
      {
        now: '2026-12-26 10:00:00',
        advanced_by_seconds: 2_678_400,
        jobs: {
          days: 31,
          recurrence: { charged: 0, declined: 1, refused: 0, canceled: 0, errors: 0 },
          expiry: { canceled: 0 },
          subscription_end: { expired: 0 },
          coverage: { protected: 1, expired: 0 },
          refunds: { refunded: 0, retried: 0, failed: 0, errors: 0 },
        },
      },
    ],
  },
)
