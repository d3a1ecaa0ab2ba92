// Loaded with `node --import` into the API process when the bench runs with --profile: SIGUSR2
// starts the V8 CPU profiler (the one behind --cpu-prof), the next SIGUSR2 stops it and writes
// BENCH_PROFILE_DIR/profile-<n>.cpuprofile. Start-up and warm-up stay out of the profiles.
import { renameSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { join } from 'node:path'

const dir = process.env.BENCH_PROFILE_DIR
if (dir) {
  const session = new Session()
  session.connect()
  let running = false
  let written = 0
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')),
      )
      return
    }
    running = false
    session.post('Profiler.stop', (error, result) => {
      if (error) {
        process.stderr.write(`profiler: ${error.message}\n`)
        return
      }
      written += 1
      const file = join(dir, `profile-${written}.cpuprofile`)
      writeFileSync(`${file}.tmp`, JSON.stringify(result.profile))
      renameSync(`${file}.tmp`, file)
    })
  })
}
