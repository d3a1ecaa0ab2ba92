#!/usr/bin/env node
import { run } from './program.js'

const io = {
  env: process.env,
  out: (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text: string) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
}

process.exitCode = await run(process.argv.slice(2), io)
