// Packs the TypeScript client (clients/typescript) into dist/sdk/amparo-client-<version>.tgz, the
// version the service's own (package.json), for `GET /sdk/amparo-client.tgz` (README, TypeScript
// client). The client is copied into dist/sdk/package/ with that version, compiled there with the
// repository's TypeScript (its dependencies' types resolve from the repository's node_modules),
// then `npm pack`ed; the copy is removed.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
const out = 'dist/sdk'
const work = join(out, 'package')
const { version } = JSON.parse(readFileSync('package.json', 'utf8'))

rmSync(out, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
for (const entry of ['src', 'tsconfig.json', 'README.md']) {
  cpSync(join('clients/typescript', entry), join(work, entry), { recursive: true })
}
const manifest = JSON.parse(readFileSync('clients/typescript/package.json', 'utf8'))
manifest.version = version
// Built here, not by its prepack; TypeScript is not needed by whoever installs it.
delete manifest.scripts
delete manifest.devDependencies
writeFileSync(join(work, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(work, 'tsconfig.json')], {
  stdio: 'inherit',
})
execFileSync('npm', ['pack', '--silent', '--pack-destination', '..'], {
  cwd: work,
  stdio: ['ignore', 'ignore', 'inherit'],
})
rmSync(work, { recursive: true, force: true })
console.log(`packed ${out}/amparo-client-${version}.tgz`)
