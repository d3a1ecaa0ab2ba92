import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

export const planRoutes: FastifyPluginAsyncTypebox = async (_app) => {}
