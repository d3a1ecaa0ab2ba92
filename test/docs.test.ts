import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/test-app.js'

// /docs works from anywhere (issue 26 point 5): opened over plain http from another machine, every
// asset it references loads, nothing is upgraded to https, and it is Amparo's reference.

let origin: string

const ctx = useTestApp()
beforeAll(async () => {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  origin = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`
})

/** The URLs of the scripts, styles and icons an HTML page references. */
function assetUrls(html: string): string[] {
  const tags = html.match(/<(script|link)\b[^>]*>/g) ?? []
  return tags.flatMap((tag) => /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1] ?? [])
}

describe('GET /docs', () => {
  it('is titled and branded as the Amparo API reference', async () => {
    const page = await fetch(`${origin}/docs`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<title>Amparo API reference</title>')
    expect(html).not.toContain('Swagger UI</title>')
    // Our icon, not the framework's.
    expect(html).toMatch(/<link rel="icon" type="image\/svg\+xml" href="[^"]*\/theme\/amparo\.svg"/)
    expect(html).not.toContain('favicon-32x32.png')
    const initializer = await (await fetch(`${origin}/docs/static/swagger-initializer.js`)).text()
    expect(initializer).toContain('data:image/svg+xml;base64,')
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer)?.[1] ?? ''
    expect(Buffer.from(logo, 'base64').toString()).toContain('Amparo API reference')
    expect(initializer).toContain('validatorUrl')
    // A search box over the operations.
    expect(initializer).toMatch(/"filter":\s*true/)
  })

  it('sends no upgrade-insecure-requests over plain http', async () => {
    for (const path of ['/docs', '/docs/static/swagger-ui-bundle.js']) {
      const response = await fetch(`${origin}${path}`)
      const csp = response.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("default-src 'self'")
      expect(csp, path).not.toContain('upgrade-insecure-requests')
      await response.arrayBuffer()
    }
  })

  it('loads every script, style and icon it references, and the document it renders', async () => {
    const base = `${origin}/docs`
    const html = await (await fetch(base)).text()
    const urls = assetUrls(html)
    expect(urls.length).toBeGreaterThanOrEqual(6)
    for (const url of [...urls, './docs/json']) {
      const absolute = new URL(url, base)
      expect(absolute.origin, url).toBe(origin)
      const response = await fetch(absolute)
      expect(response.status, url).toBe(200)
      expect((await response.arrayBuffer()).byteLength, url).toBeGreaterThan(0)
    }
  })
})
