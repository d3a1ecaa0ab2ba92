import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { customerMessages } from '../messages/message.service.js'
import { consoleAnswers } from './console.schemas.js'
import { CustomerMessages, CustomerMessagesParams } from './customer-messages.schemas.js'

export const customerMessageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app

  app.get(
    '/api/customers/:id/messages',
    {
      config: { role: 'viewer' },
      schema: {
        tags: ['Search'],
        operationId: 'listCustomerMessages',
        summary: "A customer's messages and their state",
        description:
          'The e-mails Amparo wrote to the customer (README, Messages to the insured), newest first: what each said, and whether the mail server took it, is retrying, refused it for 24 h, or it was kept (no mail server). A sign-in code shows in `test` only. An unknown customer has none.',
        params: CustomerMessagesParams,
        response: { 200: CustomerMessages, ...consoleAnswers(false) },
      },
    },
    async (request) => ({ data: await customerMessages(db, request.params.id, config.env) }),
  )
}
