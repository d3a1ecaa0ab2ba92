import { Type } from 'typebox'
import { Id } from './http-schemas.js'

/**
 * The body fields both contracting endpoints (POST /subscriptions, POST /annual-plans) share:
 * the customer by id or document, the model, the used-device flag and its alias, the store and
 * the desired LMI. One definition, so the two bodies cannot drift apart.
 */
export const contractingFields = {
  customer_id: Type.Optional(
    Id(
      'The customer, from `POST /customers` or `GET /customers/{document}`. Send this or `customer_document`.',
    ),
  ),
  customer_document: Type.Optional(
    Type.String({
      format: 'cpf-or-cnpj',
      maxLength: 20,
      description:
        'CPF or CNPJ of a customer already registered by this partner, bare or formatted; used when `customer_id` is absent.',
    }),
  ),
  model_id: Id('Device model, from `GET /models`: one this partner may sell.'),
  is_used: Type.Optional(
    Type.Boolean({
      description:
        'The device has more than 3 months of use (annual plans: the used-device factor applies). Default false.',
    }),
  ),
  used: Type.Optional(
    Type.Boolean({ description: 'Alias of `is_used`; `is_used` wins when both are sent.' }),
  ),
  store_id: Type.Optional(Id('The partner’s store making the sale, from `GET /shopkeepers`.')),
  maxima: Type.Optional(
    Type.Number({
      description:
        'Desired LMI in reais (at most two decimals). Inside the partner’s authorized range it is the LMI; outside, the model default applies, without error.',
    }),
  ),
}
