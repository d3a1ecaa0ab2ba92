import { type TSchema, Type } from 'typebox'
import type { FieldErrors } from '../shared/errors.js'
import { DOCUMENTED_ONLY, Id, nullable } from './http-schemas.js'

/**
 * The body fields both contracting endpoints (POST /subscriptions, POST /annual-plans) share:
 * the customer by id or document, the model, the used-device flag and its alias, the store and
 * the desired LMI. One definition, so the two bodies cannot drift apart.
 *
 * An optional field sent as null counts as not sent, as the serials already did: a client that
 * writes every field, or sends back what a resource shows (`store_id: null`), is not refused.
 */
/** An optional input that also takes null, documented as such. */
const optional = <T extends TSchema>(schema: T, description: string) =>
  Type.Optional(nullable(schema, `${description} Null counts as not sent.`))

export const contractingFields = {
  customer_id: optional(
    Id(''),
    'The customer, from `POST /customers` or `GET /customers/{document}`. Send this or `customer_document`.',
  ),
  customer_document: optional(
    Type.String({ format: 'cpf-or-cnpj', maxLength: 20 }),
    'CPF or CNPJ of a customer already registered by this partner, bare or formatted; used when `customer_id` is absent. Sent with `customer_id`, it must be that customer’s.',
  ),
  model_id: Id('Device model, from `GET /models`: one this partner may sell.'),
  is_used: optional(
    Type.Boolean(),
    'The device has more than 3 months of use (annual plans: the used-device factor applies). Default false.',
  ),
  used: optional(
    Type.Boolean(),
    'Alias of `is_used`. Both sent with different values → 422 under `is_used`.',
  ),
  store_id: optional(Id(''), 'The partner’s store making the sale, from `GET /shopkeepers`.'),
  maxima: optional(
    Type.Number(),
    'Desired LMI in reais (at most two decimals). Inside the partner’s authorized range it is the LMI; outside, the model default applies, without error.',
  ),
}

/**
 * Options of a contracting body: one of `customer_id` and `customer_document` (not null) names
 * the customer, as `anyOf` for generators. resolveCustomer enforces it, so that its error comes
 * in one 422 with the body's others (unknown model, store…): the schema only documents it.
 */
/**
 * A contracting body's request examples, one for each demo partner (`amparo demo`), named so that
 * a reader and the example test know whose ids they name: the external-gateway partner's plans
 * come first in a fresh demo (ids 1–4), the own-gateway partner's copies after them (5–8). Both
 * sell every demo model, so model ids are the same.
 */
export function gatewayExamples(external: object, own: object) {
  return {
    'x-examples': {
      externalGateway: {
        summary: 'As the demo’s external-gateway partner (Loja Demo, gateway externo)',
        value: external,
      },
      ownGateway: { summary: 'As the demo’s own-gateway partner (Loja Demo, gateway Amparo)', value: own },
    },
  }
}

export const customerReference = {
  [DOCUMENTED_ONLY]: {
    anyOf: [
      { required: ['customer_id'], properties: { customer_id: { type: 'integer' } } },
      { required: ['customer_document'], properties: { customer_document: { type: 'string' } } },
    ],
  },
}

/**
 * The used-device flag from `is_used` and its alias `used` (null is not sent). Both sent with
 * different values is an input error, collected into `errors` under `key`: picking one would
 * price the device one way here and another way wherever the other wins.
 */
export function usedDevice(
  isUsed: boolean | null | undefined,
  used: boolean | null | undefined,
  errors: FieldErrors,
  key = 'is_used',
): boolean {
  if (isUsed != null && used != null && isUsed !== used) {
    errors[key] = ['The is used field and its alias used must agree.']
  }
  return isUsed ?? used ?? false
}
