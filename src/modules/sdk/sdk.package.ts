import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

// The TypeScript client as `npm run build` packs it (scripts/sdk-pack.mjs): dist/sdk/
// amparo-client-<version>.tgz, the version the service's own (README, TypeScript client).

const TARBALL = /^amparo-client-(.+)\.tgz$/

/** The packed client: its version and bytes; null when the service was not built with it. */
export interface SdkPackage {
  version: string
  filename: string
  bytes: Buffer
}

/**
 * The project's dist/sdk/, found from this file upwards (src/modules/sdk/ when run from the sources,
 * dist/ or dist/chunks/ when bundled): the folder holding the service's package.json.
 */
export function defaultSdkDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'clients', 'typescript'))) {
      return join(dir, 'dist', 'sdk')
    }
    const parent = dirname(dir)
    if (parent === dir) return join(process.cwd(), 'dist', 'sdk')
    dir = parent
  }
}

/** Reads the packed client once; null when the folder has none. */
export function loadSdkPackage(directory: string): SdkPackage | null {
  if (!existsSync(directory)) return null
  const filename = readdirSync(directory).find((name) => TARBALL.test(name))
  if (!filename) return null
  const version = TARBALL.exec(filename)?.[1] as string
  return { version, filename, bytes: readFileSync(join(directory, filename)) }
}
