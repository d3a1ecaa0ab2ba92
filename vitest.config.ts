import { configDefaults, defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

// `npm test` runs every file on SQLite; with DATABASE_URL set (CI's second run), only the files that
// reach a database: the unit tests under src/ (pure rules, config, time; src/db/ excepted), the
// TypeScript client's against a stub server (test/client/), and the files that read the served
// document, its reference page and the packed client (no query answers them) would answer the
// same a second time.
const onPostgres = Boolean(process.env.DATABASE_URL)
const DATABASE_FREE = ['test/client/**', 'test/openapi.test.ts', 'test/docs.test.ts', 'test/sdk.test.ts']

// The files that take longest, started first so that the run does not end on one of them alone:
// a fresh clone (CI) has no timings of an earlier run, and Vitest then starts the largest files
// first, which are not the slowest. Ordered longest first (per-file times: `--reporter=json`).
const SLOW_FIRST = [
  'test/openapi-examples.test.ts',
  'test/console/console-screens.test.ts',
  'test/console/console-admin.test.ts',
  'test/fuzz/openapi.fuzz.test.ts',
  'test/production.test.ts',
  'test/cli-demo.test.ts',
]

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((path) => file.moduleId.endsWith(path))
      return i === -1 ? SLOW_FIRST.length : i
    }
    // Array.prototype.sort is stable: the rest keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  test: {
    include: onPostgres
      ? ['src/db/**/*.test.ts', 'test/**/*.test.ts']
      : ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: onPostgres ? [...configDefaults.exclude, ...DATABASE_FREE] : configDefaults.exclude,
    // Each test file builds its own app on its own database (SQLite in memory or a fresh
    // PostgreSQL schema), so files run in parallel safely.
    pool: 'forks',
    // A worker runs its files one after another in one module graph, imported once: isolated,
    // each file imported the whole service again (a third of the suite's time). Test helpers keep
    // no state from one file's set-up to the next (each world resets its own in its afterAll).
    isolate: false,
    // One fork a core (Vitest's default leaves one core free: on 2 cores the files ran one at a
    // time, 214 s on SQLite; with both, 131 s; many files mostly wait on sockets, timers and
    // processes). On PostgreSQL each file migrates a schema of its own, and the migrator reads and
    // locks that schema only (src/db/postgres-dialect.ts).
    maxWorkers: '100%',
    sequence: { sequencer: SlowFirst },
    // Secrets and passwords hashed at a low cost in the test process; write transactions that hold
    // anything but the database fail their test (see the files).
    setupFiles: ['test/helpers/hash-cost.ts', 'test/helpers/transaction-guard.ts'],
    // Once a run: the sources bundled for the processes tests start; on PostgreSQL a migrated template.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
