import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

function newest(folder: string): number {
  let latest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

const built = new Map<string, Promise<string>>()

/**
 * A built web app (`console` or `portal`): dist/<app>-web when it is newer than every file of its
 * folder and the labels (npm ci and npm run build make it), else a build of this process's own in
 * a temporary folder (never a shared write: test files run in parallel).
 */
function webRoot(app: 'console' | 'portal'): Promise<string> {
  let promise = built.get(app)
  if (!promise) {
    promise = (async () => {
      const BUILT = join(root, `dist/${app}-web`)
      const index = join(BUILT, 'index.html')
      // The apps build src/shared/labels.ts into their bundles too; the portal shares the console's router.
      const sources = Math.max(
        newest(join(root, app)),
        statSync(join(root, 'src/shared/labels.ts')).mtimeMs,
        statSync(join(root, 'console/src/router.ts')).mtimeMs,
      )
      if (existsSync(index) && statSync(index).mtimeMs >= sources) return BUILT
      const outDir = mkdtempSync(join(tmpdir(), `amparo-${app}-`))
      const { build } = await import('vite')
      await build({
        configFile: join(root, `${app}/vite.config.ts`),
        logLevel: 'warn',
        build: { outDir, emptyOutDir: true },
      })
      return outDir
    })()
    built.set(app, promise)
  }
  return promise
}

export const consoleRoot = () => webRoot('console')
export const portalRoot = () => webRoot('portal')
