import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { commit } from '../../plugins/unit-of-work.js'
import { nowIso } from '../../shared/time.js'
import { customerResource } from './customer.mapper.js'
import { CnpjPathParams, Customer, CustomerBody, CustomerParams } from './customer.schemas.js'
import { createCustomer, findCustomer } from './customer.service.js'

const tags = ['Customers']

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/customers',
    {
      schema: {
        tags,
        operationId: 'registerCustomer',
        summary: 'Register a customer',
        description: `Registers an insured party of the authenticated partner. Customers are per partner:
the same document may be registered by another partner, but only once by this one; a second
registration (formatted or bare, any letter case) answers 422 with \`errors.document\`.

Documents, phones and zip codes are accepted formatted or bare and returned bare; the state is
returned uppercase. \`address\` is optional (absent or null → \`address: null\` in the response);
when sent, all its fields but \`complement\` are required. Fields other than those listed
(\`id\`, \`partner_id\`, \`created_at\`, …) are ignored.`,
        body: CustomerBody,
        response: { 201: Customer, ...errorResponses(400, 401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { partnerId } = request.partner
      return commit(reply.code(201), async (trx) =>
        customerResource(
          await createCustomer(trx, partnerId, request.body, nowIso(request.clock)),
          app.config.timeZone,
        ),
      )
    },
  )

  const byDocument = {
    tags,
    operationId: 'getCustomerByDocument',
    summary: 'Get a customer by document',
    description: `The authenticated partner's customer with this CPF or CNPJ, sent formatted
(\`529.982.247-25\`, \`12.ABC.345/01DE-35\` or \`12.ABC.345%2F01DE-35\`) or bare (\`52998224725\`),
letters in any case. Its \`id\` is the customer id of the contracting calls. An unknown or
malformed document, or another partner's customer, answers 404.`,
    params: CustomerParams,
    response: { 200: Customer, ...errorResponses(401, 404) },
  }
  // One lookup for both routes below, so that they answer alike.
  const customerByDocument = async (partnerId: number, document: string) =>
    customerResource(await findCustomer(app.db, partnerId, document), app.config.timeZone)

  app.get('/customers/:document', { schema: byDocument }, (request) =>
    customerByDocument(request.partner.partnerId, request.params.document),
  )
  // A formatted CNPJ sent with its `/` unencoded (`/customers/11.222.333/0001-81`): the router
  // sees two segments. The same lookup, joined again; documented by the route above.
  app.get(
    '/customers/:root/:branch',
    { schema: { hide: true, params: CnpjPathParams, response: byDocument.response } },
    (request) =>
      customerByDocument(request.partner.partnerId, `${request.params.root}/${request.params.branch}`),
  )
}
