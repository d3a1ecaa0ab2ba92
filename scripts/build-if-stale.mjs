// `npm start` (prestart): builds dist/ only when a source changed since the last complete build,
// so that a start right after `npm install` (which built it) serves at once, and a second
// `npm start` does not rebuild dist/ under a first one still running. `--stamp` (the last step of
// `npm run build`) records that a build completed.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const STAMP = 'dist/.build-complete'
/** What `npm run build` reads: the service, the console, the portal, the client it packs, and their configuration. */
const INPUTS = [
  'src',
  'console',
  'portal',
  'clients/typescript/src',
  'clients/typescript/package.json',
  'clients/typescript/README.md',
  'scripts/bundle.mjs',
  'scripts/sdk-pack.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
]

/** The latest modification time under `path` (node_modules and tests left out), 0 when absent. */
function newest(path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.endsWith('.test.ts')) continue
    latest = Math.max(latest, newest(join(path, entry)))
  }
  return latest
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`)
  process.exit(0)
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0
const changed = Math.max(...INPUTS.map(newest))
if (built > changed) {
  console.log(`dist/ is current (built ${new Date(built).toLocaleString()}): not building again.`)
  process.exit(0)
}
console.log(
  built === 0
    ? 'Building dist/ (the first build takes 30–60 s on two cores: TypeScript, the bundle, the client package, the console)…'
    : 'A source changed since the last build: building dist/ again (TypeScript builds incrementally)…',
)
const started = Date.now()
const build = spawnSync('npm', ['run', '-s', 'build'], {
  stdio: 'inherit',
  shell: process.platform === 'win32',
})
if (build.status !== 0) process.exit(build.status ?? 1)
console.log(`Built in ${Math.round((Date.now() - started) / 1000)} s.`)
