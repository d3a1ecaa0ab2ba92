import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

// Child processes of the bench: spawned, watched, and always stopped, whatever happens.

const children = new Set<ChildProcess>()

process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

export interface Server {
  name: string
  child: ChildProcess
  pid: number
  port: number
  /** Milliseconds from spawn to the first 200 of the health address. */
  startupMs: number
  /** The last lines the process wrote on stderr (for error messages). */
  stderrTail(): string
}

export interface SpawnOptions {
  name: string
  args: string[]
  env: NodeJS.ProcessEnv
  port: number
  /** Where stdout goes (the request log); /dev/null when absent. */
  stdoutFile?: string
  healthPath: string
  startTimeoutMs?: number
}

/** Starts a node process and waits until `healthPath` answers 200; measures the time it took. */
export async function startServer(options: SpawnOptions): Promise<Server> {
  const out = openSync(options.stdoutFile ?? '/dev/null', 'a')
  const started = performance.now()
  const child = spawn(process.execPath, options.args, {
    env: options.env,
    stdio: ['ignore', out, 'pipe'],
  })
  closeSync(out)
  children.add(child)
  child.once('exit', () => children.delete(child))
  let stderr = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const stderrTail = () => stderr.trim().split('\n').slice(-8).join('\n')

  const deadline = started + (options.startTimeoutMs ?? 30_000)
  const url = `http://127.0.0.1:${options.port}${options.healthPath}`
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${options.name} exited during start-up (${child.exitCode ?? child.signalCode}):\n${stderrTail()}`,
      )
    }
    if (performance.now() > deadline) {
      await stop(child)
      throw new Error(`${options.name} did not answer ${options.healthPath} in time:\n${stderrTail()}`)
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) })
      await response.arrayBuffer()
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    await sleep(5)
  }
  const startupMs = performance.now() - started
  if (child.pid === undefined) throw new Error(`${options.name} has no pid`)
  return { name: options.name, child, pid: child.pid, port: options.port, startupMs, stderrTail }
}

/** SIGTERM, then SIGKILL after `graceMs`. Resolves once the process is gone. */
export async function stop(child: ChildProcess, graceMs = 12_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((child) => stop(child)))
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Resident memory of a process, from /proc: current (VmRSS) and peak since start (VmHWM), in MB. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 }
  } catch {
    return null
  }
}

/** Samples a process's RSS every `everyMs` while running; `peak()` is the highest sample so far. */
export function rssSampler(pid: number, everyMs = 100) {
  let peak = 0
  const sample = () => {
    const memory = memoryOf(pid)
    if (memory) peak = Math.max(peak, memory.rssMb)
  }
  sample()
  const timer = setInterval(sample, everyMs)
  return {
    peak: () => peak,
    reset() {
      peak = 0
      sample()
    },
    stop() {
      clearInterval(timer)
      sample()
    },
  }
}

/** Waits for a file to appear (a CPU profile written by a child), up to `timeoutMs`. */
export async function waitForFile(path: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      await sleep(200) // let the writer finish
      return true
    }
    await sleep(100)
  }
  return false
}

/** CPU time of the whole machine (all cores) and of some processes, from /proc, in clock ticks. */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
  const [, user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).map(Number)
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)
  return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) }
}

/** /proc counts CPU time in USER_HZ ticks, 100 a second on Linux whatever the kernel's HZ. */
const TICK_US = 10_000

/** A process's CPU time so far (user + system), in µs, at /proc's 10 ms resolution. */
export function processCpuUs(pid: number): number {
  return processTicks(pid) * TICK_US
}

export function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12]) // utime, stime
  } catch {
    return 0
  }
}

/**
 * How busy the machine was between `start()` and `end()`, in cores: ours (the listed processes:
 * the bench itself, the API, the baseline) and foreign (everything else — the noise).
 */
export function cpuMeter(pids: () => number[], cores: number) {
  let m0 = machineTicks()
  let p0 = new Map<number, number>()
  return {
    start() {
      m0 = machineTicks()
      p0 = new Map(pids().map((pid) => [pid, processTicks(pid)]))
    },
    /** Also each listed process's own CPU time meanwhile, in µs. */
    end(): { oursCores: number; foreignCores: number; usByPid: Map<number, number> } {
      const m1 = machineTicks()
      const usByPid = new Map<number, number>()
      for (const [pid, before] of p0) usByPid.set(pid, Math.max(0, processTicks(pid) - before) * TICK_US)
      const ours = [...usByPid.values()].reduce((sum, us) => sum + us, 0) / TICK_US
      const elapsedPerCore = (m1.total - m0.total) / cores
      if (elapsedPerCore <= 0) return { oursCores: 0, foreignCores: 0, usByPid }
      const busy = m1.busy - m0.busy
      return {
        oursCores: ours / elapsedPerCore,
        foreignCores: Math.max(0, busy - ours) / elapsedPerCore,
        usByPid,
      }
    },
  }
}

/**
 * Resolves once the processes have been idle (under 8 % of a core) for two windows of 250 ms in a
 * row: the server has worked off what a stopped load run left queued. False after `timeoutMs`.
 */
export async function waitIdle(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  const ticks = () => pids.reduce((sum, pid) => sum + processTicks(pid), 0)
  let quiet = 0
  while (Date.now() < deadline) {
    const before = ticks()
    await sleep(250)
    quiet = ticks() - before <= 2 ? quiet + 1 : 0
    if (quiet >= 2) return true
  }
  return false
}
