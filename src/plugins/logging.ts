import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify'
import pino from 'pino'
import { isLuhnValid } from '../shared/documents.js'

// Never logged: credentials, tokens and card data, at the top level of a logged object or one
// level down (`*.x` does not match a top-level `x`).
const SECRET_FIELDS = [
  'client_secret',
  'password',
  'token',
  'access_token',
  'creditCard',
  'card_number',
  'card_cvv',
  'cvv',
]
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-credentials"]',
  'req.headers.cookie',
  // @fastify/multipart logs the request's headers at trace level.
  'busboyOptions.headers.authorization',
  'busboyOptions.headers["x-credentials"]',
  'busboyOptions.headers.cookie',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
]

/**
 * The service's logger: pino at `level`, secrets censored, to stdout unless a stream is given.
 * Written synchronously, so that no line is lost when the process exits or crashes.
 */
export function loggerOptions(
  level: string,
  stream: { write(line: string): void } = pino.destination({ dest: 1, sync: true }),
): FastifyServerOptions['logger'] {
  return { level, redact: { paths: REDACT, censor: '[redacted]' }, stream }
}

// The logged URL is the URL as sent, less what a client may have put in it by mistake: the
// service reads no credential or card from a URL, but `?number=4111…`, `?jwt=eyJ…` or a token
// pasted into a path would otherwise be written to the log as sent. So only the values of the
// query parameters the route declares are kept (`page`, `filter[status]`); the others are
// censored whatever their name, and anything shaped like a token or a card number (13 to 19
// digits passing the Luhn check) is censored wherever it appears.
const CENSORED = '[redacted]'
const TOKEN_LIKE = /eyJ[\w-]*\.[\w-]*\.[\w-]*/g
const DIGIT_RUN = /\d(?:(?:-|%20|\+)?\d){12,18}/g

/** `text` with token-shaped strings and card-shaped digit runs censored. */
export function censorSecrets(text: string): string {
  return text
    .replace(TOKEN_LIKE, CENSORED)
    .replace(DIGIT_RUN, (run) => (isLuhnValid(run.replace(/\D/g, '')) ? CENSORED : run))
}

function decodedKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '))
  } catch {
    return key
  }
}

/** The URL as logged: see above. `declared` are the route's query parameter names. */
export function loggableUrl(url: string, declared: ReadonlySet<string> = NONE): string {
  const query = url.indexOf('?')
  const path = censorSecrets(query < 0 ? url : url.slice(0, query))
  if (query < 0) return path
  const pairs = url.slice(query + 1).split('&')
  const kept = pairs.map((pair) => {
    const eq = pair.indexOf('=')
    const key = eq < 0 ? pair : pair.slice(0, eq)
    if (eq < 0 || !declared.has(decodedKey(key)))
      return `${censorSecrets(key)}${eq < 0 ? '' : `=${CENSORED}`}`
    return censorSecrets(pair)
  })
  return `${path}?${kept.join('&')}`
}

const NONE: ReadonlySet<string> = new Set()
const declaredBySchema = new WeakMap<object, ReadonlySet<string>>()

/** The query parameter names the request's route declares (none for an unknown route). */
function declaredQuery(request: FastifyRequest): ReadonlySet<string> {
  const schema = request.routeOptions.schema?.querystring as { properties?: object } | undefined
  if (!schema?.properties) return NONE
  let names = declaredBySchema.get(schema)
  if (!names) {
    names = new Set(Object.keys(schema.properties))
    declaredBySchema.set(schema, names)
  }
  return names
}

/**
 * One log line per request, at its end (method, path, status, time), instead of Fastify's two:
 * the logging stays on at `info` while costing a fraction (measured in docs/benchmarks.md).
 */
export class OneLineRequestLog extends LogController {
  // The completed line holds only these fixed fields, none of them a secret (bodies and headers
  // are never in it; the URL is censored above), so it skips the redaction pass, which cost more
  // than the rest of the line (docs/benchmarks.md). Errors keep the redacting logger.
  private plain: FastifyBaseLogger | undefined

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: loggableUrl(request.url, declaredQuery(request)),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    }
    if (error) {
      reply.log.error({ ...line, err: error }, 'request errored')
      return
    }
    this.plain ??= request.server.log.child({}, { redact: [] })
    this.plain.info({ reqId: request.id, ...line }, 'request completed')
  }
}
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/**
 * `request.log`: the request's child logger (its lines carry `reqId`), built on first use: pino
 * builds a child through the redaction pass, and most requests never log through it (their one line
 * has its own logger, above). Kept for its cost: docs/benchmarks.md, Optimisations kept.
 */
class RequestLogger implements FastifyBaseLogger {
  declare fatal: FastifyBaseLogger['fatal']
  declare error: FastifyBaseLogger['error']
  declare warn: FastifyBaseLogger['warn']
  declare info: FastifyBaseLogger['info']
  declare debug: FastifyBaseLogger['debug']
  declare trace: FastifyBaseLogger['trace']
  declare silent: FastifyBaseLogger['silent']
  private built: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: Parameters<FastifyBaseLogger['child']>[1],
  ) {}

  logger(): FastifyBaseLogger {
    this.built ??= this.parent.child(this.bindings, this.options)
    return this.built
  }

  get level(): string {
    return this.logger().level
  }

  set level(level: string) {
    this.logger().level = level
  }

  child(...args: Parameters<FastifyBaseLogger['child']>): FastifyBaseLogger {
    return this.logger().child(...args)
  }
}

for (const level of LEVELS) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: unknown[]) {
      const logger = this.logger()
      return (logger[level] as (...a: unknown[]) => void).apply(logger, args)
    },
  })
}

export const lazyRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new RequestLogger(logger, bindings, options)
