import { join } from 'node:path'
import { baselineScenario, runLoad } from './load.js'
import { freePort, processCpuUs, type Server, startServer, stop } from './proc.js'

// The bench's baseline server (bench/baseline-server.mjs, which needs dist/), plain and with the
// API's request logging, under the bench's load: the server CPU a request of each, as `npm run
// bench` reports it, measured here so that bench/ceiling.ts compares its floors with the budgets
// of this machine at this moment.

export interface BareServerCost {
  /** Server CPU a request of the bare server: the denominator of every ratio target. */
  plainUs: number
  /** The same server writing the API's one-line request log: what a logged request costs at least. */
  loggedUs: number
}

/**
 * Runs each server `rounds` times for `seconds` (50 connections, half a second of settling first),
 * alternating, and sums CPU and responses per server: two servers a few seconds apart see the
 * same machine.
 */
export async function bareServerCost(options: {
  root: string
  dir: string
  bodyFile: string
  seconds: number
  rounds?: number
}): Promise<BareServerCost> {
  const start = async (name: string, logFile?: string): Promise<Server> => {
    const port = await freePort()
    return startServer({
      name,
      args: [join(options.root, 'bench/baseline-server.mjs')],
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        BASELINE_BODY_FILE: options.bodyFile,
        ...(logFile && { BASELINE_LOG_FILE: logFile }),
      },
      port,
      healthPath: '/health',
    })
  }
  const plain = await start('baseline')
  const logged = await start('baseline with request logging', join(options.dir, 'baseline.log'))
  const totals = new Map<Server, { cpuUs: number; responses: number }>([
    [plain, { cpuUs: 0, responses: 0 }],
    [logged, { cpuUs: 0, responses: 0 }],
  ])
  try {
    for (let round = 0; round < (options.rounds ?? 2); round++) {
      for (const server of [plain, logged]) {
        const before = processCpuUs(server.pid)
        const m = await runLoad({
          port: server.port,
          connections: 50,
          duration: options.seconds,
          requests: baselineScenario().requests,
          settleS: 0.5,
        })
        if (m.non2xx + m.errors + m.timeouts > 0) throw new Error(`${server.name} failed requests`)
        const total = totals.get(server) as { cpuUs: number; responses: number }
        total.cpuUs += processCpuUs(server.pid) - before
        total.responses += m.responses
      }
    }
  } finally {
    await Promise.all([stop(plain.child), stop(logged.child)])
  }
  const us = (server: Server) => {
    const { cpuUs, responses } = totals.get(server) as { cpuUs: number; responses: number }
    return cpuUs / responses
  }
  return { plainUs: us(plain), loggedUs: us(logged) }
}
