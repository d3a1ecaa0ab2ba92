import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

// The bench's child processes (started, measured from /proc, always stopped).

const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

export interface Server {
  child: ChildProcess
  pid: number
  port: number
  /** Milliseconds from spawn to the first 200 of /health. */
  startupMs: number
}

/** `node ...args` with PORT=`port` in `env`, once its /health answers 200; stdout to `logFile`. */
export async function startServer(args: string[], env: NodeJS.ProcessEnv, logFile = '/dev/null') {
  const port = await freePort()
  const out = openSync(logFile, 'a')
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', out, 'pipe'],
  })
  closeSync(out)
  children.add(child)
  child.once('exit', () => children.delete(child))
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || performance.now() - started > 60_000) {
      await stop(child)
      throw new Error(`${args.join(' ')} did not start:\n${stderr.trim()}`)
    }
    const ok = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.arrayBuffer().then(() => r.status === 200),
      () => false,
    )
    if (ok) break
    await sleep(5)
  }
  return { child, pid: child.pid as number, port, startupMs: performance.now() - started } satisfies Server
}

/** SIGTERM, then SIGKILL after 12 s; resolves once the process is gone. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000)
  await exited
  clearTimeout(timer)
}

export const stopAll = () => Promise.all([...children].map(stop))

/** `node ...args` (no port, no health check), stopped with the others; stdout and stderr to `logFile`. */
export function startProcess(args: string[], env: NodeJS.ProcessEnv, logFile = '/dev/null'): ChildProcess {
  const out = openSync(logFile, 'a')
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', out, out] })
  closeSync(out)
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Resident memory now and its peak since start (VmRSS, VmHWM), MB. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 }
}

/** CPU time (user + system) of processes so far, µs; /proc counts 100 ticks a second. */
export function cpuUs(pids: number[]): number {
  let sum = 0
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      sum += (Number(fields[11]) + Number(fields[12])) * 10_000
    } catch {
      // gone
    }
  }
  return sum
}

/** Waits until the processes are idle (≤ 2 ticks in 250 ms, twice in a row): the server drained its queue. */
export async function waitIdle(pids: number[]): Promise<void> {
  for (let quiet = 0, deadline = Date.now() + 600_000; quiet < 2; ) {
    if (Date.now() > deadline) throw new Error('a server did not drain its queue in 10 minutes')
    const before = cpuUs(pids)
    await sleep(250)
    quiet = cpuUs(pids) - before <= 20_000 ? quiet + 1 : 0
  }
}
