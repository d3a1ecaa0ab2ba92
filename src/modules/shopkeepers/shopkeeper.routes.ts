import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl, listPage } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { PageOf, PageQuery } from '../../shared/pagination.js'
import { nowIso } from '../../shared/time.js'
import { createdShopkeeperResource, shopkeeperResource } from './shopkeeper.mapper.js'
import { CreatedShopkeeper, Shopkeeper, ShopkeeperBody, ShopkeeperParams } from './shopkeeper.schemas.js'
import { createShopkeeper, shopkeeperPage, showShopkeeper } from './shopkeeper.service.js'

const tags = ['Shopkeepers']

const READ_SHAPE = `Each store: \`id\`, \`trading_name\`, \`registration_number\` (bare CNPJ), \`matrix\`, \`phone\`,
\`website\`, \`address\`, \`responsible\` (without bank data; \`address\` and \`responsible\` are null for the
matrix store), \`created_at\` and \`meta.link\`. Bank data is stored for commission transfers and never returned.`

export const shopkeeperRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/shopkeepers',
    {
      schema: {
        tags,
        operationId: 'registerStore',
        summary: 'Register a branch (sub-store)',
        description: `Registers a branch of the authenticated partner. Its \`id\` is the \`store_id\` of the
contracting endpoints.

Every field's rule is stated in the body schema. CNPJ and CPF check digits are verified; documents,
phones and the CEP are accepted bare or formatted and stored bare, the state uppercase and the e-mail
lowercase. \`registration_number\`, \`responsible.email\` (regardless of case) and
\`responsible.registration_number\` are unique across the service, every partner's stores included:
a value already taken answers 422 \`The … has already been taken.\` under that field's key, also when
two registrations race (exactly one wins). A partner's own CNPJ belongs to its matrix store.

The answer is the seed's creation shape: \`responsible\` is null and \`matrix\` false; read the store
with \`GET /shopkeepers/{shopkeeperId}\` for the rest. Bank data is never returned.`,
        body: ShopkeeperBody,
        response: { 201: CreatedShopkeeper, ...errorResponses(400, 401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { partnerId } = request.partner
      return commit(reply.code(201), async (trx) =>
        createdShopkeeperResource(
          await createShopkeeper(trx, partnerId, request.body, nowIso(request.clock)),
          baseUrl(request),
        ),
      )
    },
  )

  app.get(
    '/shopkeepers',
    {
      schema: {
        tags,
        operationId: 'listStores',
        summary: 'List the stores',
        description: `The partner's stores, paginated (15 per page): its matrix store first (\`matrix: true\`),
then the branches in registration order. Only this partner's stores appear.

${READ_SHAPE}`,
        querystring: PageQuery,
        response: { 200: PageOf(Shopkeeper), ...errorResponses(401, 422) },
      },
    },
    async (request) =>
      listPage(
        request,
        request.query,
        (offset, limit) => shopkeeperPage(app.db, request.partner.partnerId, offset, limit),
        (row, base) => shopkeeperResource(row, base, app.config.timeZone),
      ),
  )

  app.get(
    '/shopkeepers/:shopkeeperId',
    {
      schema: {
        tags,
        operationId: 'getStore',
        summary: 'Get a store',
        description: `One store of the partner, its matrix included. Another partner's store answers 404,
like an unknown id.

${READ_SHAPE}`,
        params: ShopkeeperParams,
        response: { 200: Shopkeeper, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const row = await showShopkeeper(app.db, request.partner.partnerId, request.params.shopkeeperId)
      return shopkeeperResource(row, baseUrl(request), app.config.timeZone)
    },
  )
}
