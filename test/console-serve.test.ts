import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { CONSOLE_CSP } from '../src/console/static.js'
import { amparoProcess } from './helpers/cli.js'
import { consoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

// Where the operator console is served (README, Operator console): its own listener, its built
// pages under a strict CSP, its API document.

const dir = mkdtempSync(join(tmpdir(), 'amparo-console-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const built = join(dir, 'dist-console')
mkdirSync(join(built, 'assets'), { recursive: true })
writeFileSync(
  join(built, 'index.html'),
  '<!doctype html><title>Amparo</title><script type="module" src="/assets/app.js"></script>',
)
writeFileSync(join(built, 'assets', 'app.js'), 'console.log("amparo")')

describe('the built console', () => {
  const ctx = consoleApp({ staticRoot: built })

  it('serves its files and index.html for any other page, under the console CSP', async () => {
    for (const url of ['/', '/sinistros/12', '/busca?q=1']) {
      const page = await ctx.console.inject({ method: 'GET', url })
      expect(page.statusCode, url).toBe(200)
      expect(page.headers['content-type']).toMatch(/^text\/html/)
      expect(page.body).toContain('<title>Amparo</title>')
      expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP)
      expect(page.headers['x-frame-options']).toBe('DENY')
    }
    const script = await ctx.console.inject({ method: 'GET', url: '/assets/app.js' })
    expect(script.statusCode).toBe(200)
    expect(script.headers['content-type']).toMatch(/javascript/)
    expect(script.headers['content-security-policy']).toBe(CONSOLE_CSP)
  })

  it('answers JSON 404 under /api, never the page', async () => {
    const missing = await ctx.console.inject({ method: 'GET', url: '/api/nothing-here' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('not_found')
    expect(missing.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'")
  })

  it('publishes its own OpenAPI document', async () => {
    const document = await ctx.console.inject({ method: 'GET', url: '/api/openapi.json' })
    expect(document.statusCode).toBe(200)
    const paths = Object.keys(document.json().paths)
    expect(paths).toEqual(
      expect.arrayContaining(['/api/session', '/api/session/totp', '/api/operators', '/api/audit']),
    )
    expect(paths.some((p) => !p.startsWith('/api/'))).toBe(false)
    // The error bodies keep their names, which the console's generated types use (api/client.ts).
    expect(Object.keys(document.json().components.schemas)).toEqual(
      expect.arrayContaining(['Error', 'ValidationError']),
    )
  })
})

describe('beside the partner API', () => {
  const partner = useTestApp()
  const ctx = consoleApp({ over: () => partner })

  it('is built over the partner app’s database', async () => {
    expect(ctx.db).toBe(partner.db)
    const headers = await ctx.loginAs('viewer')
    expect((await ctx.console.inject({ method: 'GET', url: '/api/session', headers })).statusCode).toBe(200)
  })
})

describe('a console not built', () => {
  const ctx = consoleApp({ staticRoot: null })

  it('says at / how to build it', async () => {
    const page = await ctx.console.inject({ method: 'GET', url: '/' })
    expect(page.statusCode).toBe(503)
    expect(page.headers['content-type']).toMatch(/^text\/plain/)
    expect(page.body).toMatch(/npm run build/)
  })
})

describe('its address', () => {
  const base = { AMPARO_SQLITE_FILE: ':memory:' }
  const production = {
    ...base,
    AMPARO_ENV: 'production',
    AMPARO_PUBLIC_URL: 'https://api.example.com',
    AMPARO_JWT_KEYS: 'k1=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A',
  }

  it('is 127.0.0.1:3001 by default in test; in production only when the port is set; 0 turns it off', () => {
    expect(loadConfig(base).console).toEqual({ host: '127.0.0.1', port: 3001, portSet: false })
    expect(
      loadConfig({ ...base, AMPARO_CONSOLE_HOST: '10.0.0.5', AMPARO_CONSOLE_PORT: '4001' }).console,
    ).toEqual({
      host: '10.0.0.5',
      port: 4001,
      portSet: true,
    })
    expect(loadConfig({ ...base, AMPARO_CONSOLE_PORT: '0' }).console).toBeNull()
    expect(loadConfig(production).console).toBeNull()
    const key = { AMPARO_CONSOLE_SECRET_KEY: 'Vt3qLx9Rk2mWc8ZpHs5NbY7eGd4JfA6uQo1iKr0TzEwMy2Xa' }
    expect(loadConfig({ ...production, ...key, AMPARO_CONSOLE_PORT: '4001' }).console?.port).toBe(4001)
    expect(() => loadConfig({ ...base, AMPARO_CONSOLE_PORT: '70000' })).toThrow(/AMPARO_CONSOLE_PORT/)
  })

  it('needs AMPARO_CONSOLE_SECRET_KEY (32+ characters) in production with a console; test has its own', () => {
    expect(() => loadConfig({ ...production, AMPARO_CONSOLE_PORT: '4001' })).toThrow(
      /AMPARO_CONSOLE_SECRET_KEY is required/,
    )
    expect(loadConfig(production).consoleSecretKey).toEqual(expect.any(String))
    expect(() => loadConfig({ ...base, AMPARO_CONSOLE_SECRET_KEY: 'short' })).toThrow(/32\+ characters/)
    expect(loadConfig(base).consoleSecretKey.length).toBeGreaterThanOrEqual(32)
  })
})

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

describe('amparo serve', () => {
  let database: TestDatabase | undefined
  afterAll(async () => {
    await database?.drop()
  })

  it('listens on the console port too, prints its address and the demo operator, and stops with the API', async () => {
    let dbEnv: Record<string, string> = { AMPARO_SQLITE_FILE: join(dir, 'serve.sqlite') }
    if (process.env.DATABASE_URL) {
      database = await createTestDatabase()
      dbEnv = database.env
    }
    const [port, consolePort] = [await freePort(), await freePort()]
    const child = spawn(process.execPath, amparoProcess('serve'), {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: {
        ...process.env,
        ...dbEnv,
        HOST: '127.0.0.1',
        PORT: String(port),
        AMPARO_CONSOLE_PORT: String(consolePort),
        AMPARO_ENV: 'test',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      // The operator's lines come last, maybe in a later write than the console's address.
      for (let tries = 0; !/password +amparo-demo-console$/m.test(stdout); tries++) {
        if (child.exitCode !== null || tries > 1200) throw new Error(`serve did not start:\n${stdout}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(stdout).toContain(`Operator console: http://127.0.0.1:${consolePort}/`)
      expect(stdout).toMatch(/^ +operator +operador@demo\.amparo$/m)
      const password = /^ +password +(amparo-demo-console)$/m.exec(stdout)?.[1]
      expect(password).toBe('amparo-demo-console')

      const signIn = await fetch(`http://127.0.0.1:${consolePort}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${consolePort}` },
        body: JSON.stringify({ email: 'operador@demo.amparo', password }),
      })
      expect(signIn.status).toBe(200)
      expect(await signIn.json()).toMatchObject({ stage: 'done', operator: { role: 'admin' } })
      // The back office is never on the partners' address.
      expect((await fetch(`http://127.0.0.1:${port}/api/session`)).status).toBe(404)
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  }, 120_000)
})
