#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=4194304 node --max-semi-space-size=4 --max-old-space-size=96
// The command carries how `amparo serve` must run, as V8 and glibc fix these when the process starts:
// heap limits, and big allocations (a login's 16 MiB scrypt) returned to the system rather than kept
// by each thread that made one (README, Deployment: Memory; docs/decisions.md, Performance).
import { run } from './program.js'

const io = {
  env: process.env,
  out: (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text: string) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
}

process.exitCode = await run(process.argv.slice(2), io)
