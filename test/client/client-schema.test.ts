import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { CLIENT_SCHEMA_FILE, generateClientSchema } from '../../scripts/client-schema.js'

describe('the client’s generated types', () => {
  it('are those of the document the service serves (else run `npm run client:generate`)', async () => {
    const committed = await readFile(CLIENT_SCHEMA_FILE, 'utf8')
    const generated = await generateClientSchema()
    // A plain equality would print 10,000 lines: the first differing line says enough.
    const committedLines = committed.split('\n')
    const generatedLines = generated.split('\n')
    const first = generatedLines.findIndex((line, i) => line !== committedLines[i])
    const where =
      first === -1 && committedLines.length === generatedLines.length
        ? null
        : { line: first === -1 ? generatedLines.length + 1 : first + 1, generated: generatedLines[first] }
    expect(where, 'clients/typescript/src/schema.ts is stale: run `npm run client:generate`').toBeNull()
    // Building the app and generating 18,000 lines of types: over 20 s on a busy 2-core machine.
  }, 90_000)
})
