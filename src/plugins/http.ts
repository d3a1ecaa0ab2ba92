import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import fp from 'fastify-plugin'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Echoes the caller's X-Request-Id when it is sane, so both sides can trace one call. */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID()
}

/** JSON only: other content types answer 415, an empty body is no body. */
export const httpPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id)
    })

    const parseJson = app.getDefaultJsonParser('error', 'error')
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '') return done(null, undefined)
      parseJson(request, body as string, done)
    })

    // Body-less POSTs (notify-payment, login by header) validate as an empty object.
    app.addHook('preValidation', async (request) => {
      if (request.body === undefined && request.routeOptions.schema?.body) request.body = {}
    })
  },
  { name: 'http' },
)
