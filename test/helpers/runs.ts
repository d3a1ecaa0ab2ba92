/**
 * How many runs a fuzz or property test makes. `.ci/run` exports `AMPARO_TEST_RUNS=full` for the
 * full counts; a local `npm test` without it makes a tenth of them (at least one), enough to
 * catch a broken property quickly while the CI explores the input space.
 */
export function runs(full: number): number {
  const mode = process.env.AMPARO_TEST_RUNS ?? 'quick'
  if (mode === 'full') return full
  if (mode === 'quick') return Math.max(1, Math.round(full / 10))
  throw new Error(`AMPARO_TEST_RUNS must be "full" or "quick", not ${JSON.stringify(mode)}`)
}
