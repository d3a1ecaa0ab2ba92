// The bench's baseline: a bare Fastify server (default options, no logger, no hooks) answering a
// static JSON body — a real subscription resource taken from the API — on GET /baseline.
//
// With BASELINE_LOG_FILE it logs requests to that file with the API's logger settings (pino,
// level info, the same redaction paths, from dist/): a reference for what request logging alone
// costs, never the baseline of the ratios. BASELINE_LOG_MODE picks how (bench/logging.ts compares):
//   api      the API's own request logging and destination (dist/plugins/logging.js and
//            log-destination.js: one line a request, written once a turn of the event loop; default)
//   fastify  Fastify's own request logging, two lines a request, synchronous writes
//   one-line one line a request (disableRequestLogging + an onResponse hook), synchronous
//   async    Fastify's two lines, written through a buffered asynchronous destination
//   one-line-async
// Env: PORT, BASELINE_BODY_FILE, BASELINE_LOG_FILE, BASELINE_LOG_MODE.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import pino from 'pino'
import { loggerOptions, OneLineRequestLog } from '../dist/plugins/logging.js'

const body = readFileSync(process.env.BASELINE_BODY_FILE ?? '', 'utf8')
const logFile = process.env.BASELINE_LOG_FILE
const mode = process.env.BASELINE_LOG_MODE ?? 'api'
const asyncWrites = mode.endsWith('async')
const oneLine = mode.startsWith('one-line')

const destination =
  logFile && pino.destination({ dest: logFile, sync: !asyncWrites, minLength: asyncWrites ? 4096 : 0 })
const app = Fastify({
  logger: logFile ? loggerOptions('info', destination) : false,
  disableRequestLogging: oneLine,
  ...(logFile && mode === 'api' && { logController: new OneLineRequestLog() }),
})
if (logFile && oneLine) {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: reply.elapsedTime,
      },
      'request completed',
    )
  })
}
app.get('/baseline', (_request, reply) => {
  reply.type('application/json; charset=utf-8').send(body)
})
app.get('/health', async () => ({ status: 'ok' }))

process.once('SIGTERM', () => {
  app.close().then(() => {
    if (destination?.flushSync) destination.flushSync()
    else destination?.flush()
    process.exit(0)
  })
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
