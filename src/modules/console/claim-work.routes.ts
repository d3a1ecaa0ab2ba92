import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { consoleError } from '../../console/console-schemas.js'
import { commit } from '../../plugins/unit-of-work.js'
import { AssignBody, Note, NoteBody } from './claim-work.schemas.js'
import { addNote, assignClaim, type Worker } from './claim-work.service.js'
import { DeskClaim, DeskClaimParams } from './claims-desk.schemas.js'
import { consoleAnswers } from './console.schemas.js'

const tags = ['Claims desk']

const worker = (request: FastifyRequest): Worker => ({
  operator: { id: request.operator.id, email: request.operator.email, role: request.operator.role },
  ip: request.ip ?? null,
})

export const claimWorkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { clock } = app

  app.post(
    '/api/claims/:id/assignee',
    {
      config: { role: 'adjuster' },
      schema: {
        tags,
        operationId: 'assignDeskClaim',
        summary: 'Assign a claim',
        description:
          'An adjuster takes an unassigned claim ("Atribuir a mim") or releases their own; an admin assigns it to any adjuster or admin, or to nobody. Audited. Taken meanwhile by someone else → 409 `decision_conflict`.',
        params: DeskClaimParams,
        body: AssignBody,
        response: {
          200: DeskClaim,
          ...consoleAnswers(true, 404, 422),
          409: consoleError('Another operator assigned the claim first.', 'decision_conflict'),
        },
      },
    },
    async (request, reply) => {
      const now = clock.now().toISOString()
      return commit(reply, (trx) =>
        assignClaim(trx, worker(request), request.params.id, request.body.assignee_id, now),
      )
    },
  )

  app.post(
    '/api/claims/:id/notes',
    {
      config: { role: 'adjuster' },
      schema: {
        tags,
        operationId: 'addDeskClaimNote',
        summary: 'Write an internal note on a claim',
        description:
          'Internal (the partner never sees it), 1 to 2,000 characters, append-only: shown in the claim’s activity with its author and time. Audited.',
        params: DeskClaimParams,
        body: NoteBody,
        response: { 201: Note, ...consoleAnswers(true, 404, 422) },
      },
    },
    async (request, reply) => {
      const now = clock.now().toISOString()
      reply.code(201)
      return commit(reply, (trx) => addNote(trx, worker(request), request.params.id, request.body.body, now))
    },
  )
}
