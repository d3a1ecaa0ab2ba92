import pino from 'pino'

type Flushed = (error?: Error) => void

// Batches holding lines not yet written. Exit handlers run on `process.exit`, on a return from
// the last callback and after an uncaught exception has been reported, so those lines are
// written then too; only a SIGKILL or an abort can lose them, and then only one turn's worth.
const pending = new Set<LineBatch>()
process.on('exit', () => {
  for (const batch of pending) batch.flush()
})

/**
 * Log lines, written synchronously once per turn of the event loop: the lines logged while the
 * loop works through its ready sockets go out in one `write` when it is done (`setImmediate`).
 *
 * Why not one of pino's own destinations (docs/benchmarks.md, docs/decisions.md): its default
 * for stdout writes asynchronously, and its buffered ones (`minLength`) append each line to the
 * pending string and measure that string anew, copying it whole, on every line — ≈ 7 KB of
 * garbage a request under load. A synchronous write per line avoids that but is one system call
 * per request. Joining the turn's lines here keeps both costs off the request; the writing
 * itself (partial writes, EAGAIN on a pipe) stays sonic-boom's.
 */
export class LineBatch {
  private lines: string[] = []

  constructor(private readonly out: { write(text: string): unknown }) {}

  write(line: string): void {
    if (this.lines.push(line) > 1) return
    pending.add(this)
    setImmediate(this.flush)
  }

  /** Writes what is pending now; pino calls it as `flush(callback)`. */
  readonly flush = (done?: Flushed): void => {
    if (this.lines.length > 0) {
      pending.delete(this)
      const text = this.lines.join('')
      this.lines = []
      this.out.write(text)
    }
    if (typeof done === 'function') done()
  }
}

/** The service's log lines to file descriptor `fd`, stdout by default. */
export function lineDestination(fd = 1): LineBatch {
  return new LineBatch(pino.destination({ dest: fd, sync: true }))
}
