// The bench's bare server: Fastify with default options answering GET /baseline with a fixed body
// (a real subscription resource taken from the API). With BARE_LOG_FILE it also writes the API's
// request log, one line a request with the fields of the API's line, through pino's synchronous
// destination, as the floor's HTTP part. It imports nothing of the service, so any revision of
// the service can be measured against it. Env: PORT, BARE_BODY_FILE, BARE_LOG_FILE.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import pino from 'pino'

const body = readFileSync(process.env.BARE_BODY_FILE ?? '', 'utf8')
const logFile = process.env.BARE_LOG_FILE
const logger = logFile && pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true }))
const app = Fastify(
  logger ? { loggerInstance: logger, disableRequestLogging: true, childLoggerFactory: (l) => l } : {},
)
if (logger) {
  app.addHook('onResponse', (request, reply, done) => {
    const ms = Math.round(reply.elapsedTime * 10) / 10
    logger.info(
      { reqId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms },
      'request completed',
    )
    done()
  })
}
app.get('/baseline', (_request, reply) => {
  reply.type('application/json; charset=utf-8').send(body)
})
app.get('/health', async () => ({ status: 'ok' }))
process.once('SIGTERM', () => app.close().then(() => process.exit(0)))
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
