import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/test-app.js'

// The client served by the service (README, TypeScript client): the packed tarball `npm run build`
// leaves in dist/sdk/, here a stand-in one. That `npm install <url>` of the real one installs and
// runs is the client pack check's (scripts/client-pack-check.sh, run by CI against `npm start`).

const work = mkdtempSync(join(tmpdir(), 'amparo-sdk-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const built = join(work, 'built')
mkdirSync(built)
const TARBALL = Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4])
writeFileSync(join(built, 'amparo-client-1.2.3.tgz'), TARBALL)

describe('GET /sdk/amparo-client.tgz', () => {
  const ctx = useTestApp({ sdkDirectory: built })

  it('serves the packed client without a token, under its plain and its versioned name', async () => {
    for (const url of ['/sdk/amparo-client.tgz', '/sdk/amparo-client-1.2.3.tgz']) {
      const response = await ctx.app.inject({ method: 'GET', url })
      expect(response.statusCode, url).toBe(200)
      expect(response.headers['content-type']).toBe('application/gzip')
      expect(response.headers['content-disposition']).toBe('attachment; filename="amparo-client-1.2.3.tgz"')
      expect(response.rawPayload.equals(TARBALL)).toBe(true)
    }
  })

  it('answers 404 for another version', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/sdk/amparo-client-0.0.1.tgz' })
    expect(response.statusCode).toBe(404)
    expect(response.json().code).toBe('not_found')
  })

  it('links it from GET /', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/' })
    expect(response.json()).toMatchObject({
      name: expect.any(String),
      version: expect.any(String),
      docs: 'http://localhost:80/docs',
      openapi: 'http://localhost:80/openapi.json',
      sdk: 'http://localhost:80/sdk/amparo-client.tgz',
    })
  })
})

describe('a service started without building the client', () => {
  const ctx = useTestApp({ sdkDirectory: join(work, 'missing') })

  it('answers 404 not_found', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/sdk/amparo-client.tgz' })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ code: 'not_found', message: 'Client package not found.' })
  })
})
