import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

export const annualPlanRoutes: FastifyPluginAsyncTypebox = async (_app) => {}
