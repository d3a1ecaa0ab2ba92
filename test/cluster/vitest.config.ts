import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// `npm run test:cluster`: real amparo processes (API and workers) on a fresh PostgreSQL database
// and on a SQLite file. Not part of `npm test` (files end in `.cluster.ts`); needs PostgreSQL at
// 127.0.0.1:5432 (CLUSTER_PG_ADMIN_URL) and, for shared rate limits, Redis (CLUSTER_REDIS_URL).
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/cluster/**/*.cluster.ts'],
    pool: 'forks',
    // One cluster at a time: the machine has few cores and the figures must mean something.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['verbose'],
  },
})
