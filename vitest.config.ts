import { configDefaults, defineConfig } from 'vitest/config'

// `npm test` runs every file on SQLite; with DATABASE_URL set (CI's second run), only the files that
// reach a database: the unit tests under src/ (pure rules, config, time; src/db/ excepted) and the
// TypeScript client's against a stub server (test/client/) would answer the same a second time.
const onPostgres = Boolean(process.env.DATABASE_URL)

export default defineConfig({
  test: {
    include: onPostgres
      ? ['src/db/**/*.test.ts', 'test/**/*.test.ts']
      : ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: onPostgres ? [...configDefaults.exclude, 'test/client/**'] : configDefaults.exclude,
    // Each test file builds its own app on its own database (SQLite in memory or a fresh
    // PostgreSQL schema), so files run in parallel safely.
    pool: 'forks',
    // One fork a core (Vitest's default leaves one core free: on 2 cores the files ran one at a
    // time, 214 s on SQLite; with both, 131 s; many files mostly wait on sockets, timers and
    // processes). On PostgreSQL each file migrates a schema of its own, and the migrator reads and
    // locks that schema only (src/db/postgres-dialect.ts).
    maxWorkers: '100%',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
