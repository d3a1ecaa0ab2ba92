import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { pixImage } from './payment-code.service.js'

export const pixImageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/pix/:image',
    {
      schema: {
        tags: ['Payments'],
        operationId: 'getPixImage',
        summary: 'The QR code of a PIX code, as a PNG',
        description: `The address a PIX code's \`qr_code_png\` gives: the QR image of its copia-e-cola text, for a page or a
screen to show. No token: the address itself is random and unguessable. Any other address → 404.`,
        params: Type.Object({
          image: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}\\.png$', description: '`<token>.png`.' }),
        }),
        response: {
          200: Type.Unsafe<Buffer>({
            description: 'The QR code, a PNG image.',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const png = await pixImage(app.db, request.params.image.replace(/\.png$/, ''))
      return reply.type('image/png').header('cache-control', 'private, max-age=3600').send(png)
    },
  )
}
