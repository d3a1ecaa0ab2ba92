import fastifyStatic from '@fastify/static'
import fp from 'fastify-plugin'

/**
 * No inline script or style, nothing from elsewhere (README, Operator console). The one worker is
 * pdf.js's, a file of the build; no frame and no plugin: a claim's PDF is drawn on canvas.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; worker-src 'self'; frame-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

const isApi = (url: string) => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')

/**
 * The built single-page app at `/` (the console's, or the portal's): its files, and `index.html` for
 * any other GET outside `/api/` (the app routes in the browser). Pages carry the console's CSP
 * instead of the API's; without a build, `/` says how to make one.
 */
export const consoleStatic = fp<{ root: string | null; name?: string }>(
  async (app, { root, name = 'The operator console' }) => {
    app.addHook('onSend', async (request, reply) => {
      if (isApi(request.url)) return
      reply.header('content-security-policy', CONSOLE_CSP)
      reply.header('cache-control', 'no-cache')
    })
    if (root) await app.register(fastifyStatic, { root, wildcard: false, index: false, serve: true })
    app.get('/*', { schema: { hide: true } }, async (request, reply) => {
      if (isApi(request.url)) return reply.callNotFound()
      if (!root)
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send(`${name} is not built: run \`npm run build\`, then restart.\n`)
      return reply.type('text/html; charset=utf-8').sendFile('index.html', root)
    })
  },
  { name: 'console-static', dependencies: ['errors'] },
)
