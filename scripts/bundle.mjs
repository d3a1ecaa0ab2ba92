// Bundles the compiled CLI (dist/cli/main.js) and the packages it imports into one ES module,
// dist/amparo.mjs, which `npm start` and the `amparo` command run.
//
// Why: Node 20's ES module loader resolves, reads and compiles each file on its own, and the
// service imports about 1,500 of them (typebox alone is 709). That was 0.6 – 0.8 s of a 1.4 – 2.2 s
// start-up on the bench's 2-core Xeon; the bundle starts in 1.0 – 1.2 s (docs/benchmarks.md).
// Node 22's module compile cache would be the other way, but the service supports Node 20.
//
// The tests bundle the sources the same way (test/helpers/global-setup.ts): the processes they start
// load in a fifth of the CPU time tsx takes to load the sources file by file.
import { rmSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

/** Bundles `entry` (the compiled CLI, or its TypeScript source) into `outdir`/amparo.mjs. */
export async function bundle(entry, outdir) {
  // Chunk names carry a content hash: old ones would pile up.
  rmSync(`${outdir}/chunks`, { recursive: true, force: true })
  await build({
    entryPoints: { amparo: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    // What the code imports on demand (the metrics plugin and its prom-client) goes in chunks of its
    // own: in one file its imports would be hoisted and loaded at every start.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
    external: [
      // A native addon: loaded from node_modules as it is.
      'better-sqlite3',
      // Loaded only when configured (PostgreSQL, Redis, metrics), so a SQLite start never reads them.
      'pg',
      'ioredis',
      'prom-client',
      // Serves its own static files, found next to its code in node_modules.
      '@fastify/swagger-ui',
      // Reads its font metrics (Helvetica's .afm) from its own folder at run time: bundled, it would
      // look for them next to dist/amparo.mjs.
      'pdfkit',
    ],
    // The bundled CommonJS packages (fastify, pino, …) call `require` for Node's own modules; an ES
    // module has none, so the bundle makes one.
    banner: {
      js: "import { createRequire as amparoRequire } from 'node:module';\nconst require = amparoRequire(import.meta.url);",
    },
  })
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await bundle('dist/cli/main.js', 'dist')
