import type { Clock } from '../../src/shared/time.js'
import { type ConsoleTestContext, createConsoleApp } from '../helpers/console.js'
import type { TestContext } from '../helpers/test-app.js'
import { consoleRoot } from './built.js'

export interface ServedConsole extends ConsoleTestContext {
  base: string
}

/** The console app over a partner app's database, listening on a free port of 127.0.0.1. */
export async function serveConsole(over: TestContext, clock?: Clock): Promise<ServedConsole> {
  const staticRoot = await consoleRoot()
  const ctx = await createConsoleApp({ over: () => over, clock, staticRoot })
  await ctx.console.listen({ host: '127.0.0.1', port: 0 })
  const address = ctx.console.server.address()
  if (!address || typeof address === 'string') throw new Error('the console is not listening')
  return { ...ctx, base: `http://127.0.0.1:${address.port}` }
}
