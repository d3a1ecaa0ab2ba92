import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { lineDestination } from './log-destination.js'
import { loggerOptions, OneLineRequestLog } from './logging.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('the log destination', () => {
  let dir = ''
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('writes every request line of a turn of the event loop at its end, in order', async () => {
    dir = mkdtempSync(join(tmpdir(), 'amparo-log-'))
    const file = join(dir, 'out.log')
    const fd = openSync(file, 'w')
    try {
      const app = Fastify({
        logger: loggerOptions('info', lineDestination(fd)),
        logController: new OneLineRequestLog(),
      })
      app.get('/ping', async () => ({ ok: true }))
      await Promise.all(Array.from({ length: 50 }, (_, i) => app.inject({ url: `/ping?n=${i}` })))
      await turn()
      const written = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
      expect(written.map((line) => line.msg)).toEqual(Array(50).fill('request completed'))
      await app.close()
    } finally {
      closeSync(fd)
    }
  })

  it('writes the lines still waiting for the end of the turn when the process exits, or crashes', () => {
    const code = `
      import { lineDestination } from './src/plugins/log-destination.ts'
      const out = lineDestination()
      out.write('first\\n')
      out.write('second\\n')
      if (process.argv.at(-1) === 'crash') throw new Error('boom')
      process.exit(3)`
    for (const [how, status] of [
      ['exit', 3],
      ['crash', 1],
    ] as const) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, how], {
        encoding: 'utf8',
      })
      expect({ how, status: child.status, stdout: child.stdout }).toEqual({
        how,
        status,
        stdout: 'first\nsecond\n',
      })
    }
  })
})
