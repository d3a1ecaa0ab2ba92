import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { sandboxMessage } from '../messages/message.mapper.js'
import { SandboxMessageList, SandboxMessageQuery } from '../messages/message.schemas.js'
import { partnerMessages } from '../messages/message.service.js'

/**
 * The messages to the partner's customers (README, Messages to the insured); registered only in
 * `AMPARO_ENV=test` (production answers 404), like the sandbox clock.
 */
export const sandboxMessageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app

  app.get(
    '/sandbox/messages',
    {
      schema: {
        tags: ['Sandbox'],
        operationId: 'listSandboxMessages',
        summary: "List the messages to the partner's customers",
        description: `Test environment only. The e-mails Amparo wrote to this partner's customers, newest
first: the contract in force, a declined or overdue installment, a claim's steps, a cancellation,
and the portal's sign-in codes and links. Without a mail server (\`AMPARO_SMTP_URL\` unset) they are
\`kept\`, not sent, and read here; with one, \`state\` tells whether it took them. A message is
written by the worker after the change that causes it, so it may appear a moment later.
Another partner's customers' messages never appear.`,
        querystring: SandboxMessageQuery,
        response: { 200: SandboxMessageList, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { customer_id, kind, limit = 50 } = request.query
      const rows = await partnerMessages(db, request.partner.partnerId, {
        customerId: customer_id,
        kind,
        limit,
      })
      return { data: rows.map((row) => sandboxMessage(row, config.timeZone)) }
    },
  )
}
