import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

export const subscriptionPaymentRoutes: FastifyPluginAsyncTypebox = async (_app) => {}
