import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { amparoProcess } from './cli.js'

// A real `amparo serve` child on a test database, for tests that kill it (-9) at a chosen moment.

const root = fileURLToPath(new URL('../..', import.meta.url))

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

export interface Served {
  child: ChildProcess
  base: string
  /** Kills it with SIGKILL, as a crash would, and waits until it is gone. */
  kill(): Promise<void>
}

/**
 * `amparo serve --no-worker` on the database `env` names, once its /health answers (generous
 * deadline: a busy machine). No worker: what it would reconcile stays for the test to see.
 */
export async function serve(env: Record<string, string>): Promise<Served> {
  const port = await freePort()
  const child = spawn(process.execPath, amparoProcess('serve', '--no-worker'), {
    cwd: root,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), AMPARO_ENV: 'test' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  let output = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  const base = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 120_000; ; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`amparo serve exited:\n${output}`)
    if (Date.now() > deadline) {
      await kill()
      throw new Error(`amparo serve did not start:\n${output}`)
    }
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, base, kill }
  }
}
