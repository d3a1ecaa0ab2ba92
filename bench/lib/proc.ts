import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

// The bench's child processes (started, measured from /proc, always stopped) and its CPU readings.

const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

export interface Server {
  name: string
  child: ChildProcess
  pid: number
  port: number
  /** Milliseconds from spawn to the first 200 of /health. */
  startupMs: number
}

/** Starts `node ...args` on `port` and waits until its /health answers 200. */
export async function startServer(options: {
  name: string
  args: string[]
  env: NodeJS.ProcessEnv
  port: number
  /** Where stdout (the request log) goes; /dev/null by default. */
  stdoutFile?: string
}): Promise<Server> {
  const out = openSync(options.stdoutFile ?? '/dev/null', 'a')
  const started = performance.now()
  const child = spawn(process.execPath, options.args, { env: options.env, stdio: ['ignore', out, 'pipe'] })
  closeSync(out)
  children.add(child)
  child.once('exit', () => children.delete(child))
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${options.name} exited during start-up:\n${stderr.trim()}`)
    if (performance.now() - started > 30_000) {
      await stop(child)
      throw new Error(`${options.name} did not answer /health in 30 s:\n${stderr.trim()}`)
    }
    try {
      const response = await fetch(`http://127.0.0.1:${options.port}/health`, {
        signal: AbortSignal.timeout(1000),
      })
      await response.arrayBuffer()
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    await sleep(5)
  }
  const startupMs = performance.now() - started
  return { name: options.name, child, pid: child.pid as number, port: options.port, startupMs }
}

/** SIGTERM, then SIGKILL after 12 s; resolves once the process is gone. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000)
  await exited
  clearTimeout(timer)
}

export const stopAll = () => Promise.all([...children].map(stop))

export function freePort(): Promise<number> {
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

/** CPU time (user + system) of a process so far, µs; /proc counts 100 ticks a second. */
export function cpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return 0
  }
}

/** Busy and total CPU time of the whole machine, µs. */
function machineUs(): { busy: number; total: number } {
  const [, user, nice, system, idle, iowait, irq, softirq, steal] = (
    readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
  )
    .trim()
    .split(/\s+/)
    .map(Number)
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)
  return { busy: busy * 10_000, total: (busy + (idle ?? 0) + (iowait ?? 0)) * 10_000 }
}

/**
 * CPU of `pids` between start and end, µs, and the cores the rest of the machine (beyond `pids`
 * and `others`: the bench itself, the other servers) kept busy meanwhile: the run's noise.
 */
export function cpuMeter(pids: number[], others: number[], cores: number) {
  const all = [...pids, ...others]
  const m0 = machineUs()
  const p0 = all.map(cpuUs)
  return () => {
    const m1 = machineUs()
    const used = all.map((pid, i) => cpuUs(pid) - (p0[i] as number))
    const serverUs = used.slice(0, pids.length).reduce((a, b) => a + b, 0)
    const ours = used.reduce((a, b) => a + b, 0)
    const wall = (m1.total - m0.total) / cores
    return { serverUs, otherCores: wall > 0 ? Math.max(0, m1.busy - m0.busy - ours) / wall : 0 }
  }
}

/** Waits until the processes are idle (≤ 2 ticks in 250 ms, twice in a row): the server drained its queue. */
export async function waitIdle(pids: number[]): Promise<void> {
  const ticks = () => pids.reduce((sum, pid) => sum + cpuUs(pid), 0)
  for (let quiet = 0, deadline = Date.now() + 600_000; quiet < 2; ) {
    if (Date.now() > deadline) throw new Error('a server did not drain its queue in 10 minutes')
    const before = ticks()
    await sleep(250)
    quiet = ticks() - before <= 20_000 ? quiet + 1 : 0
  }
}
