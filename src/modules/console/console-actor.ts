import type { FastifyRequest } from 'fastify'

/** Who acts on a console route, for the audit log: the signed-in operator and their address. */
export const actor = (request: FastifyRequest) => ({
  operator: { id: request.operator.id, email: request.operator.email },
  ip: request.ip ?? null,
})
