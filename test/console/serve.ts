import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Clock } from '../../src/shared/clock.js'
import { type ConsoleTestContext, createConsoleApp } from '../helpers/console.js'
import type { TestContext } from '../helpers/test-app.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const BUILT = join(root, 'dist/console')

function newest(folder: string): number {
  let latest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

let built: Promise<string> | undefined

/**
 * The built console: dist/console when it is newer than every file of console/ (npm ci and npm run
 * build make it), else a build of this process's own in a temporary folder (never a shared write:
 * test files run in parallel).
 */
export function consoleRoot(): Promise<string> {
  built ??= (async () => {
    const index = join(BUILT, 'index.html')
    if (existsSync(index) && statSync(index).mtimeMs >= newest(join(root, 'console'))) return BUILT
    const outDir = mkdtempSync(join(tmpdir(), 'amparo-console-'))
    const { build } = await import('vite')
    await build({
      configFile: join(root, 'console/vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    })
    return outDir
  })()
  return built
}

export interface ServedConsole extends ConsoleTestContext {
  base: string
}

/** The console app over a partner app's database, listening on a free port of 127.0.0.1. */
export async function serveConsole(over: TestContext, clock?: Clock): Promise<ServedConsole> {
  const staticRoot = await consoleRoot()
  const ctx = await createConsoleApp({ over: () => over, clock, staticRoot })
  await ctx.console.listen({ host: '127.0.0.1', port: 0 })
  const address = ctx.console.server.address()
  if (!address || typeof address === 'string') throw new Error('the console is not listening')
  return { ...ctx, base: `http://127.0.0.1:${address.port}` }
}
