import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each test file builds its own app on its own database (SQLite in memory or a fresh
    // PostgreSQL schema), so files run in parallel safely.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
