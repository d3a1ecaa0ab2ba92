import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { consoleAnswers } from './console.schemas.js'
import { Dashboard, DashboardQuery } from './dashboard.schemas.js'
import { dashboard } from './dashboard.service.js'

export const dashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app

  app.get(
    '/api/dashboard',
    {
      config: { role: 'viewer' },
      schema: {
        tags: ['Dashboard'],
        operationId: 'getDashboard',
        summary: 'The business at a glance',
        description: `Premiums written and collected per month, protections in force, claims opened / approved /
denied / settled per month, and the loss ratio (claims paid ÷ premiums collected) per partner and plan
for the period \`from\`–\`to\` (months of the service’s zone). An empty database answers zeros.`,
        querystring: DashboardQuery,
        response: { 200: Dashboard, ...consoleAnswers(false, 422) },
      },
    },
    async (request) =>
      dashboard(db, request.query, { now: clock.now().toISOString(), timeZone: config.timeZone }),
  )
}
