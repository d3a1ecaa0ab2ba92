import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import type { components } from './schema.js'

/**
 * An event as `GET /events/{id}` shows it, which is exactly the body of a webhook delivery: a union
 * told apart by `type`, so that after `if (event.type === 'subscription.activated')`
 * `event.data.object` is a `Subscription`.
 */
export type AmparoEvent = components['schemas']['Event']

/** Every event type: `subscription.activated`, `installment.payment_failed`, … */
export type AmparoEventType = AmparoEvent['type']

/** The event of one type: `AmparoEventOf<'claim.settled'>` carries a `Claim`. */
export type AmparoEventOf<T extends AmparoEventType> = AmparoEvent extends infer E
  ? E extends { type: infer U }
    ? T extends U
      ? E & { type: T }
      : never
    : never
  : never

/** A fetch `Headers`, or a Node request's headers (`req.headers`). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export { WebhookVerificationError }

/**
 * Checks a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the endpoint's `whsec_…` secret and returns its event. Throws
 * `WebhookVerificationError` when a header is missing, no signature matches (during a rotation
 * either secret's does), or the timestamp is more than 5 minutes from now (a replay). `body`
 * must be the raw text received: a re-serialised JSON object no longer matches its signature.
 */
export function verifyWebhook(body: string, headers: WebhookHeaders, secret: string): AmparoEvent {
  checkArguments(body, secret)
  const event = new Webhook(secret).verify(body, plainHeaders(headers)) as AmparoEvent | undefined
  if (event === undefined) throw new WebhookVerificationError('Empty payload')
  return event
}

/** A base64 signing secret, `whsec_` first as the service gives it (Standard Webhooks accepts it bare too). */
const SECRET = /^(whsec_)?[A-Za-z0-9+/]{4,}={0,2}$/

/**
 * A wrong argument is the integration's mistake, not a forged delivery: a `TypeError` saying which,
 * never a `WebhookVerificationError` that a handler answers with 400 and forgets.
 */
function checkArguments(body: unknown, secret: unknown) {
  if (typeof secret !== 'string' || !SECRET.test(secret)) {
    const got =
      typeof secret === 'string'
        ? secret === ''
          ? 'an empty string'
          : 'a string of another form'
        : String(secret)
    throw new TypeError(
      `verifyWebhook: secret must be the endpoint's signing secret, \`whsec_\` and base64, as POST /webhook-endpoints answered it (got ${got})`,
    )
  }
  if (typeof body !== 'string') {
    throw new TypeError(
      `verifyWebhook: body must be the raw text received (got ${body === null ? 'null' : typeof body}): a parsed or re-serialised body no longer matches its signature`,
    )
  }
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  // Duck-typed: a `Headers` of another fetch implementation is not an instance of the global one.
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).entries === 'function') {
    return Object.fromEntries((headers as Headers).entries())
  }
  const plain: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value
  }
  return plain
}
