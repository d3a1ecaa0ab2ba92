import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const BUILT = join(root, 'dist/console-web')

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
 * The built console: dist/console-web when it is newer than every file of console/ and the labels (npm ci and npm run
 * build make it), else a build of this process's own in a temporary folder (never a shared write:
 * test files run in parallel).
 */
export function consoleRoot(): Promise<string> {
  built ??= (async () => {
    const index = join(BUILT, 'index.html')
    // The console builds src/shared/labels.ts into its bundle too.
    const sources = Math.max(
      newest(join(root, 'console')),
      statSync(join(root, 'src/shared/labels.ts')).mtimeMs,
    )
    if (existsSync(index) && statSync(index).mtimeMs >= sources) return BUILT
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
