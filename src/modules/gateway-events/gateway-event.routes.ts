import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { AppError } from '../../shared/errors.js'
import { renderingContext } from '../events/event.service.js'
import { applyStripeEvent } from './gateway-event.service.js'

/** Stripe's tolerance for a signature's timestamp: older (or newer) deliveries are refused as replays. */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300
const BODY_LIMIT = 1024 * 1024

const StripeEventBody = Type.Object(
  {
    id: Type.String({ maxLength: 255, description: 'Stripe’s event id (`evt_…`): each is applied once.' }),
    type: Type.String({ maxLength: 255, description: 'The event type, e.g. `payment_intent.succeeded`.' }),
    data: Type.Object(
      { object: Type.Object({}, { additionalProperties: true }) },
      { additionalProperties: true, description: 'The object the event is about, as Stripe sends it.' },
    ),
  },
  {
    additionalProperties: true,
    examples: [
      {
        id: 'evt_3QxAmparo',
        type: 'payment_intent.succeeded',
        data: {
          object: {
            id: 'pi_3QxAmparo',
            object: 'payment_intent',
            status: 'succeeded',
            metadata: { amparo_partner_id: '12', amparo_reference: 'annual-plan-7' },
          },
        },
      },
    ],
  },
)

const EventReceipt = Type.Object(
  {
    received: Type.Literal(true),
    result: Type.Enum(['applied', 'duplicate', 'ignored'], {
      description:
        '`applied`: its effect was written now; `duplicate`: an earlier delivery of it was applied; `ignored`: nothing of Amparo’s to change (kept, so its repeats answer `duplicate`).',
    }),
  },
  { examples: [{ received: true, result: 'applied' }] },
)

const refused = () =>
  new AppError('bad_request', 'The Stripe signature of this event is missing, invalid or too old.')

/**
 * Stripe's own events (README, Going live: Stripe's events). No bearer token: a delivery is
 * Stripe's when its `Stripe-Signature` verifies, by the `stripe` library, over the exact bytes
 * received, with STRIPE_WEBHOOK_SECRET and 5 minutes' tolerance. So the body is kept raw here
 * (a scope of its own), and parsed only for the schema.
 */
export const stripeWebhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const rendering = renderingContext(config)
  const raw = new WeakMap<FastifyRequest, Buffer>()
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT },
    (request, body, done) => {
      raw.set(request, body as Buffer)
      try {
        done(null, JSON.parse((body as Buffer).toString('utf8')))
      } catch {
        done(new AppError('invalid_json', 'The request body is not valid JSON.'), undefined)
      }
    },
  )

  app.post(
    '/stripe/webhooks',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        tags: ['Stripe'],
        operationId: 'receiveStripeEvent',
        summary: 'Receive an event from Stripe (the own gateway)',
        description: `The endpoint to register at Stripe (README, "Going live: Stripe's events"); not for partners.
No bearer token: the \`Stripe-Signature\` header must verify over the exact body with the endpoint's signing
secret (\`STRIPE_WEBHOOK_SECRET\`), its timestamp within 5 minutes, else 400 \`bad_request\` and nothing is
applied (also when no secret is configured).

Each event is applied once, by its \`id\`, in the transaction of its effect: a repeat answers
\`duplicate\` and changes nothing, and an event arriving after a later one about the same payment
changes nothing either. \`payment_intent.succeeded\` pays the installment or plan of a PIX code or
boleto (\`paid_with\`), and records a first card charge whose answer was lost (the worker's
reconciliation remains the fallback); \`payment_intent.payment_failed\` / \`.canceled\` end a pending code.
\`charge.dispute.created\` / \`.closed\` record a chargeback on the charge (event \`payment.disputed\`);
\`refund.failed\` (or a refund updated to \`failed\`) puts the refund back among the failed, to retry.
Any other event is acknowledged with \`ignored\`. A failure to record → 5xx, and Stripe delivers again.`,
        body: StripeEventBody,
        response: { 200: EventReceipt, ...errorResponses(400, 413, 415, 422) },
      },
    },
    async (request) => {
      const secret = config.stripeWebhookSecret
      const signature = request.headers['stripe-signature']
      const body = raw.get(request)
      if (!secret || typeof signature !== 'string' || !body) throw refused()
      const { default: Stripe } = await import('stripe')
      try {
        Stripe.webhooks.constructEvent(body, signature, secret, STRIPE_SIGNATURE_TOLERANCE_SECONDS)
      } catch {
        throw refused()
      }
      const result = await applyStripeEvent(db, request.body, {
        gateway: app.gateway,
        clock: app.clock,
        sandboxClocks: config.env === 'test',
        rendering,
        log: request.log,
      })
      return { received: true as const, result }
    },
  )
}
