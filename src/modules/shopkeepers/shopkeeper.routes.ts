import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

export const shopkeeperRoutes: FastifyPluginAsyncTypebox = async (_app) => {}
