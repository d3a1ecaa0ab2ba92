import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'

// The bench's child processes (started, measured from /proc, always stopped), and the commands it runs.

const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

/** `node ...args`, stopped with the others; its output to the file `out` (stderr piped with `pipeStderr`). */
export function startProcess(args: string[], env: NodeJS.ProcessEnv, out = '/dev/null', pipeStderr = false) {
  const fd = openSync(out, 'a')
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', fd, pipeStderr ? 'pipe' : fd] })
  closeSync(fd)
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** `node ...args` on a free PORT, once its /health answers 200 (`startupMs` after the spawn). */
export async function startServer(args: string[], env: NodeJS.ProcessEnv, logFile?: string) {
  const port = await freePort()
  const started = performance.now()
  const child = startProcess(args, { ...env, PORT: String(port) }, logFile, true)
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const health = () =>
    fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.arrayBuffer().then(() => r.status === 200),
      () => false,
    )
  while (!(await health())) {
    if (child.exitCode !== null || child.signalCode !== null || performance.now() - started > 60_000) {
      await stop(child)
      throw new Error(`${args.join(' ')} did not start:\n${stderr.trim()}`)
    }
    await sleep(5)
  }
  return { child, pid: child.pid as number, port, startupMs: performance.now() - started }
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

/** `command ...words` to its end (15 min at most: a build on a busy machine); its stdout, or an error. */
export function run(command: string, words: string[], cwd: string): string {
  const r = spawnSync(command, words, { cwd, encoding: 'utf8', timeout: 900_000 })
  const failed = `${command} ${words.join(' ')} failed (${r.signal ?? r.status})`
  if (r.status !== 0) throw new Error(`${failed}:\n${(r.stdout + r.stderr).slice(-2000)}`)
  return r.stdout.trim()
}

/** `node ...args` to its end, asynchronously (the bench keeps measuring meanwhile); its stdout. */
export const runNode = async (args: string[], env: NodeJS.ProcessEnv) =>
  (await promisify(execFile)(process.execPath, args, { env, maxBuffer: 64 << 20 })).stdout

/** Polls `condition` every 10 ms for up to `seconds`; throws naming `what` if it never holds. */
export async function until(condition: () => boolean, seconds: number, what: string) {
  for (const deadline = performance.now() + seconds * 1000; !condition(); await sleep(10))
    if (performance.now() > deadline) throw new Error(`${what}: not done in ${seconds} s`)
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Resident memory now and its peak since start (VmRSS, VmHWM), MB. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 }
}

/**
 * CPU time (user + system) of processes so far, µs; /proc counts 100 ticks a second. `mainThread`:
 * only each process's first thread.
 */
export function cpuUs(pids: number[], { mainThread = false } = {}): number {
  let sum = 0
  for (const pid of pids) {
    try {
      const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      sum += (Number(fields[11]) + Number(fields[12])) * 10_000
    } catch {
      // gone
    }
  }
  return sum
}

/**
 * Waits until the processes' main threads are idle (≤ 2 ticks in 250 ms, twice in a row): the server
 * drained its queue. Not every thread: with `--cpu-prof` each isolate's profiler thread (the
 * checkpoint thread's too) never rests.
 */
export async function waitIdle(pids: number[]): Promise<void> {
  for (let quiet = 0, deadline = Date.now() + 600_000; quiet < 2; ) {
    if (Date.now() > deadline) throw new Error('a server did not drain its queue in 10 minutes')
    const before = cpuUs(pids, { mainThread: true })
    await sleep(250)
    quiet = cpuUs(pids, { mainThread: true }) - before <= 20_000 ? quiet + 1 : 0
  }
}
