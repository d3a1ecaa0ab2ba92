/**
 * Prints the OpenAPI document the app serves at /openapi.json, built in-process on a throwaway
 * in-memory SQLite database: what `npm run lint:openapi` lints, without a running server.
 * Usage: tsx scripts/openapi-document.ts [output file] (default: stdout).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'

const config = loadConfig({ AMPARO_SQLITE_FILE: ':memory:', LOG_LEVEL: 'silent' })
const db = createDb(config.database)
await migrateToLatest(db)
const app = await buildApp({ config, db, logger: false })
try {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`)
  const text = `${JSON.stringify(response.json(), null, 2)}\n`
  const output = process.argv[2]
  if (output) {
    mkdirSync(dirname(output), { recursive: true })
    writeFileSync(output, text)
  } else process.stdout.write(text)
} finally {
  await app.close()
  await db.destroy()
}
