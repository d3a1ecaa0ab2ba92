import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each test file builds its own app on its own database (SQLite in memory or a fresh
    // PostgreSQL schema), so files run in parallel safely.
    pool: 'forks',
    // SQLite: one fork a core (Vitest's default leaves one core free: on 2 cores the files ran one
    // at a time, 214 s; with both, 131 s; many files mostly wait on sockets, timers and processes).
    // PostgreSQL keeps the default: with two files migrating their schemas at once, one CI run saw
    // a migration fail (`relation "test_….plans" does not exist`), not yet explained.
    ...(process.env.DATABASE_URL ? {} : { maxWorkers: '100%' }),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
