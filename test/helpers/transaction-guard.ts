// Set-up of every test file (vitest.config.ts): a write transaction that awaits anything but the
// database (hashing, files, network, rendering) fails its test (src/db/transaction.ts), even
// when the code under test caught the error.
import { afterEach, expect } from 'vitest'
import { guardTransactions, takeViolations } from '../../src/db/transaction.js'

guardTransactions()
afterEach(() => {
  expect(takeViolations()).toEqual([])
})
