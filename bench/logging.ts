// What request logging costs, on the bench's baseline server: no logging vs the ways the API could
// log each request. Rounds are interleaved so that a noisy machine disturbs every variant alike.
//   npx tsx bench/logging.ts [--duration 5] [--rounds 3] [--connections 50]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { baselineScenario, runLoad } from './lib/load.js'
import { freePort, startServer, stop } from './lib/proc.js'
import { median } from './lib/report.js'

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
})
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const variants = [
  { name: 'no logging', mode: null },
  { name: 'the API: one line, no redaction pass, one write a turn', mode: 'api' },
  { name: 'Fastify: two lines a request, sync', mode: 'fastify' },
  { name: 'one line a request, sync', mode: 'one-line' },
  { name: 'two lines a request, async buffered', mode: 'async' },
  { name: 'one line a request, async buffered', mode: 'one-line-async' },
] as const

const dir = mkdtempSync(join(tmpdir(), 'amparo-logging-'))
try {
  // A body of a subscription resource's size (about 1 KB).
  const bodyFile = join(dir, 'body.json')
  writeFileSync(bodyFile, JSON.stringify({ data: 'x'.repeat(1000) }))
  const servers = []
  for (const v of variants) {
    const port = await freePort()
    servers.push({
      ...v,
      port,
      rps: [] as number[],
      p99: [] as number[],
      server: await startServer({
        name: v.name,
        args: [join(ROOT, 'bench/baseline-server.mjs')],
        env: {
          PATH: process.env.PATH,
          PORT: String(port),
          BASELINE_BODY_FILE: bodyFile,
          ...(v.mode && { BASELINE_LOG_FILE: join(dir, `${v.mode}.log`), BASELINE_LOG_MODE: v.mode }),
        },
        port,
        healthPath: '/health',
      }),
    })
  }
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const s of servers) {
      await runLoad({ port: s.port, connections: 50, duration: 1, requests: baselineScenario().requests })
      const m = await runLoad({
        port: s.port,
        connections: Number(args.connections),
        duration: Number(args.duration),
        requests: baselineScenario().requests,
      })
      s.rps.push(m.rps)
      s.p99.push(m.p99)
      process.stdout.write(`round ${round} ${s.name}: ${Math.round(m.rps)} req/s\n`)
    }
  }
  const bare = median(servers[0]?.rps ?? [])
  process.stdout.write('\nmedian req/s, ratio to no logging, median p99\n')
  for (const s of servers) {
    process.stdout.write(
      `  ${s.name.padEnd(44)} ${Math.round(median(s.rps)).toLocaleString('en').padStart(7)}  ${(median(s.rps) / bare).toFixed(2)}  ${median(s.p99).toFixed(2)} ms\n`,
    )
  }
  await Promise.all(servers.map((s) => stop(s.server.child)))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
