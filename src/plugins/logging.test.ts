import { spawnSync } from 'node:child_process'
import Fastify from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { lazyRequestLogger, loggerOptions, OneLineRequestLog } from './logging.js'

/** A bare server with the service's logger, request line and request loggers, and what it wrote. */
async function server() {
  const lines: Record<string, unknown>[] = []
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) }
  const app = Fastify({
    logger: loggerOptions('debug', stream),
    logController: new OneLineRequestLog(),
    childLoggerFactory: lazyRequestLogger,
  })
  app.get('/quiet', async () => ({ ok: true }))
  app.get('/loud', async (request) => {
    request.log.warn({ client_secret: 'hunter2', card: { card_number: '4111111111111111' } }, 'careful')
    request.log.child({ step: 'charge' }).debug('nested')
    return { level: request.log.level }
  })
  await app.ready()
  return { app, lines }
}

describe('request loggers', () => {
  it('are not built for a request that does not log; its one request line still carries its id', async () => {
    const { app, lines } = await server()
    const child = vi.spyOn(app.log, 'child')
    await app.inject({ url: '/quiet' })
    expect(child.mock.calls.filter(([bindings]) => 'reqId' in bindings)).toEqual([])
    expect(lines).toEqual([expect.objectContaining({ reqId: expect.any(String), msg: 'request completed' })])
  })

  it('carry the request id and the redaction when the request logs, children included', async () => {
    const { app, lines } = await server()
    const response = await app.inject({ url: '/loud' })
    expect(response.json()).toEqual({ level: 'debug' })
    const [warned, nested, completed] = lines
    const reqId = completed?.reqId
    expect(reqId).toEqual(expect.any(String))
    expect(warned).toMatchObject({
      reqId,
      msg: 'careful',
      client_secret: '[redacted]',
      card: { card_number: '[redacted]' },
    })
    expect(nested).toMatchObject({ reqId, step: 'charge', msg: 'nested', level: 20 })
    expect(JSON.stringify(lines)).not.toMatch(/hunter2|4111111111111111/)
  })
})

describe('the log on stdout', () => {
  it('has every line logged before the process exits, or crashes', () => {
    const code = `
      import Fastify from 'fastify'
      import { loggerOptions } from './src/plugins/logging.ts'
      const app = Fastify({ logger: loggerOptions('info') })
      app.log.info('first')
      app.log.info('second')
      if (process.argv.at(-1) === 'crash') throw new Error('boom')
      process.exit(3)`
    for (const [how, status] of [
      ['exit', 3],
      ['crash', 1],
    ] as const) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, how], {
        encoding: 'utf8',
      })
      const messages = child.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).msg)
      expect({ how, status: child.status, messages }).toEqual({ how, status, messages: ['first', 'second'] })
    }
  })
})
