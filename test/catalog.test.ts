import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { importCatalog } from '../src/modules/catalog/catalog-import.js'
import type { Brand, Model } from './helpers/api-types.js'
import type { PageBody } from './helpers/bodies.js'
import { expectedError } from './helpers/errors.js'
import { createTestApp, type TestContext, useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken, seedCatalog } from './helpers/world.js'

type Catalog = Awaited<ReturnType<typeof seedCatalog>>

const ABSOLUTE = /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/

function get(ctx: TestContext, token: string | null, url: string, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'GET', url, headers: { ...(token ? bearer(token) : {}), ...headers } })
}

async function okJson<T>(ctx: TestContext, token: string, url: string): Promise<T> {
  const response = await get(ctx, token, url)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200)
  return response.json() as T
}

const names = (page: PageBody<{ name: string }>) => page.data.map((item) => item.name)

async function setUnavailable(db: Db, partnerId: number, modelId: number) {
  await retryingTransaction(db, (trx) =>
    trx
      .updateTable('partner_models')
      .set({ unavailable: true })
      .where('partner_id', '=', partnerId)
      .where('model_id', '=', modelId)
      .execute(),
  )
}

describe('catalog', () => {
  let catalog: Catalog
  let token: string
  /** The address the app answers on, as it reports it (inject sends `Host: localhost:80`). */
  let base: string
  let apple: number
  let samsung: number
  let nokia: number

  const ctx = useTestApp()
  beforeAll(async () => {
    catalog = await seedCatalog(ctx.db)
    ;({ token } = await partnerWithToken(ctx.app, ctx.db))
    apple = catalog.model('iPhone 15').brand_id
    samsung = catalog.model('Galaxy S25').brand_id
    nokia = catalog.model('3310').brand_id
    const page = await okJson<PageBody<Brand>>(ctx, token, '/brands')
    base = page.meta.path.replace(/\/brands$/, '')
  })

  const brandLink = (id: number) => `${base}/brands/${id}`
  const modelLink = (id: number) => `${base}/models/${id}`
  const model = (name: string): Model => {
    const row = catalog.model(name)
    return {
      id: row.id,
      name: row.name,
      brand: { id: row.brand_id, name: row.brand, meta: { link: brandLink(row.brand_id) } },
      meta: { link: modelLink(row.id) },
    }
  }

  describe('GET /brands', () => {
    it('lists only the brands with a model the partner may sell, by name', async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands')
      expect(page.data).toEqual([
        { id: apple, name: 'Apple', meta: { link: brandLink(apple) } },
        { id: samsung, name: 'Samsung', meta: { link: brandLink(samsung) } },
      ])
      expect(page.data.map((b) => b.id)).not.toContain(nokia)
      expect(page.meta.total).toBe(2)
    })

    it('gives each brand an absolute meta.link ending in /brands/{id}', async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands')
      expect(base).toMatch(ABSOLUTE)
      for (const brand of page.data) {
        expect(brand.meta.link).toMatch(ABSOLUTE)
        expect(brand.meta.link.endsWith(`/brands/${brand.id}`)).toBe(true)
        expect(Object.keys(brand).sort()).toEqual(['id', 'meta', 'name'])
      }
    })

    it.each(['a b', 'x/y', 'x#y', '[::1', 'user@evil.example'])(
      'builds links from the address reached, not from a malformed Host %j',
      async (host) => {
        const response = await ctx.app.inject({
          url: `/brands/${apple}`,
          headers: { ...bearer(token), host },
        })
        expect(response.statusCode).toBe(200)
        const link = new URL(response.json().meta.link)
        expect(link.pathname).toBe(`/brands/${apple}`)
        // inject's socket: the loopback address the request reached.
        expect(link.host).toMatch(/^127\.0\.0\.1(:\d+)?$/)
      },
    )

    it.each(['api.example.com', 'api.example.com:8443', '[::1]:3000', '10.0.0.5'])(
      'keeps a well-formed Host %j in links',
      async (host) => {
        const response = await ctx.app.inject({
          url: `/brands/${apple}`,
          headers: { ...bearer(token), host },
        })
        expect(response.json().meta.link).toBe(`http://${host}/brands/${apple}`)
      },
    )

    it('answers with the exact Laravel envelope, per_page=1 page 2 of 2', async () => {
      const response = await get(ctx, token, '/brands?per_page=1&page=2')
      expect(response.statusCode).toBe(200)
      const page = response.json() as PageBody<Brand>
      expect(Object.keys(page)).toEqual(['data', 'links', 'meta'])
      expect(Object.keys(page.links)).toEqual(['first', 'last', 'prev', 'next'])
      expect(Object.keys(page.meta)).toEqual([
        'current_page',
        'from',
        'last_page',
        'links',
        'path',
        'per_page',
        'to',
        'total',
      ])
      const path = `${base}/brands`
      const url = (n: number) => `${path}?per_page=1&page=${n}`
      expect(page).toEqual({
        data: [{ id: samsung, name: 'Samsung', meta: { link: brandLink(samsung) } }],
        links: { first: url(1), last: url(2), prev: url(1), next: null },
        meta: {
          current_page: 2,
          from: 2,
          last_page: 2,
          links: [
            { url: url(1), label: '&laquo; Previous', active: false },
            { url: url(1), label: '1', active: false },
            { url: url(2), label: '2', active: true },
            { url: null, label: 'Next &raquo;', active: false },
          ],
          path,
          per_page: 1,
          to: 2,
          total: 2,
        },
      })
    })

    it('marks page 1 active and links forward on the first page', async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands?per_page=1')
      expect(names(page)).toEqual(['Apple'])
      expect(page.links.prev).toBeNull()
      expect(page.links.next).toMatch(/\?per_page=1&page=2$/)
      expect(page.meta.links.map((l) => [l.label, l.active])).toEqual([
        ['&laquo; Previous', false],
        ['1', true],
        ['2', false],
        ['Next &raquo;', false],
      ])
      expect(page.meta.links[0]?.url).toBeNull()
      expect(page.meta.links[3]?.url).toBe(page.links.next)
      expect(page.meta).toMatchObject({ current_page: 1, from: 1, to: 1, last_page: 2, total: 2 })
    })

    it('uses 15 per page by default', async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands')
      expect(page.meta).toMatchObject({
        current_page: 1,
        per_page: 15,
        from: 1,
        to: 2,
        last_page: 1,
        total: 2,
      })
      expect(page.links.prev).toBeNull()
      expect(page.links.next).toBeNull()
      expect(page.links.first).toBe(page.links.last)
      expect(new URL(page.links.first).searchParams.get('page')).toBe('1')
      expect(page.links.first.endsWith('page=1')).toBe(true)
    })

    it('answers a page past the end with no data and null from/to', async () => {
      const response = await get(ctx, token, '/brands?per_page=1&page=5')
      expect(response.statusCode).toBe(200)
      const page = response.json() as PageBody<Brand>
      expect(page.data).toEqual([])
      expect(page.meta).toMatchObject({ current_page: 5, from: null, to: null, last_page: 2, total: 2 })
      expect(page.links.last).toBe(`${base}/brands?per_page=1&page=2`)
      expect(page.links.next).toBeNull()
    })

    it('reports meta.path as the absolute list address without the query', async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands?per_page=1&page=2')
      expect(page.meta.path).toMatch(ABSOLUTE)
      expect(page.meta.path.endsWith('/brands')).toBe(true)
      expect(page.meta.path).not.toContain('?')
      for (const link of [page.links.first, page.links.last, page.links.prev]) {
        expect(link?.startsWith(`${page.meta.path}?`)).toBe(true)
      }
    })

    it.each([
      ['per_page=0', 'per_page', 'The per page field must be at least 1.'],
      ['per_page=101', 'per_page', 'The per page field must not be greater than 100.'],
      ['per_page=1000', 'per_page', 'The per page field must not be greater than 100.'],
      ['per_page=abc', 'per_page', 'The per page field must be an integer.'],
      ['page=0', 'page', 'The page field must be at least 1.'],
      ['page=-1', 'page', 'The page field must be at least 1.'],
      ['page=1.5', 'page', 'The page field must be an integer.'],
      ['page=abc', 'page', 'The page field must be an integer.'],
    ])('refuses %s with 422 keyed by the query name', async (query, key, message) => {
      const response = await get(ctx, token, `/brands?${query}`)
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(
        expectedError(response, 'validation_failed', { message, errors: { [key]: [message] } }),
      )
    })

    it('reads blank page and per_page as absent (the first page of 15), as Laravel does', async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands?page=&per_page=')
      expect([page.meta.current_page, page.meta.per_page]).toEqual([1, 15])
    })

    it('reports every invalid query parameter at once', async () => {
      const response = await get(ctx, token, '/brands?page=0&per_page=101')
      expect(response.statusCode).toBe(422)
      const body = response.json()
      expect(Object.keys(body.errors).sort()).toEqual(['page', 'per_page'])
      expect(body.message).toMatch(/ \(and 1 more error\)$/)
    })
  })

  describe('GET /brands/{id}', () => {
    it('returns the plain brand', async () => {
      const brand = await okJson<Brand>(ctx, token, `/brands/${apple}`)
      expect(brand).toEqual({ id: apple, name: 'Apple', meta: { link: brandLink(apple) } })
    })

    it('include=models attaches only the models the partner may sell', async () => {
      const brand = await okJson<Brand>(ctx, token, `/brands/${apple}?include=models`)
      const summary = (name: string) => ({
        id: catalog.model(name).id,
        name,
        meta: { link: modelLink(catalog.model(name).id) },
      })
      expect(brand).toEqual({
        id: apple,
        name: 'Apple',
        meta: { link: brandLink(apple) },
        models: [summary('iPhone 15'), summary('iPhone 16 Pro')],
      })
      expect(brand.models?.map((m) => m.name)).not.toContain('iPhone 12')
    })

    it('include=modelCount attaches models_count', async () => {
      const brand = await okJson<Brand>(ctx, token, `/brands/${apple}?include=modelCount`)
      expect(brand).toEqual({ id: apple, name: 'Apple', meta: { link: brandLink(apple) }, models_count: 2 })
    })

    it.each(['models,modelCount', 'modelCount,models'])('include=%s attaches both', async (include) => {
      const brand = await okJson<Brand>(ctx, token, `/brands/${samsung}?include=${include}`)
      expect(brand.models_count).toBe(2)
      expect(brand.models?.map((m) => m.name)).toEqual(['Galaxy A15', 'Galaxy S25'])
    })

    it.each(['bogus', 'models,bogus', 'models,', 'brand'])('refuses include=%s with 422', async (include) => {
      const response = await get(ctx, token, `/brands/${apple}?include=${encodeURIComponent(include)}`)
      expect(response.statusCode).toBe(422)
      const body = response.json()
      expect(Object.keys(body.errors)).toEqual(['include'])
      expect(body.message).toBe(body.errors.include[0])
    })

    it.each([
      ['an unknown id', () => '/brands/987654'],
      ['a non-numeric id', () => '/brands/abc'],
      ['an id beyond the integer range', () => '/brands/99999999999'],
      ['id 0', () => '/brands/0'],
      ['a fractional id', () => '/brands/1.5'],
    ])('answers 404 {message} for %s', async (_, url) => {
      const response = await get(ctx, token, url())
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
    })

    it('answers 404 for a brand with no model the partner may sell', async () => {
      const response = await get(ctx, token, `/brands/${nokia}?include=models`)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: 'Brand not found.' }))
    })
  })

  describe('GET /models', () => {
    it('lists the sellable models by brand and name, brand embedded', async () => {
      const page = await okJson<PageBody<Model>>(ctx, token, '/models')
      expect(page.data).toEqual([
        model('iPhone 15'),
        model('iPhone 16 Pro'),
        model('Galaxy A15'),
        model('Galaxy S25'),
      ])
      expect(page.meta).toMatchObject({ total: 4, per_page: 15, path: `${base}/models` })
      for (const item of page.data) {
        expect(item.meta.link).toMatch(ABSOLUTE)
        expect(item.meta.link.endsWith(`/models/${item.id}`)).toBe(true)
        expect(item.brand.meta.link.endsWith(`/brands/${item.brand.id}`)).toBe(true)
      }
    })

    it.each(['GALAXY', 'galaxy', 'laxy', 'GaLaXy S'])(
      'filter[name]=%s matches case-insensitively',
      async (name) => {
        const page = await okJson<PageBody<Model>>(
          ctx,
          token,
          `/models?filter[name]=${encodeURIComponent(name)}`,
        )
        expect(names(page).sort()).toEqual(
          name === 'GaLaXy S' ? ['Galaxy S25'] : ['Galaxy A15', 'Galaxy S25'],
        )
        expect(page.meta.total).toBe(page.data.length)
      },
    )

    it('filter[brand] and its alias brand_id restrict to one brand', async () => {
      const byFilter = await okJson<PageBody<Model>>(ctx, token, `/models?filter[brand]=${apple}`)
      expect(names(byFilter)).toEqual(['iPhone 15', 'iPhone 16 Pro'])
      const byAlias = await okJson<PageBody<Model>>(ctx, token, `/models?brand_id=${samsung}`)
      expect(names(byAlias)).toEqual(['Galaxy A15', 'Galaxy S25'])
      const none = await okJson<PageBody<Model>>(ctx, token, `/models?brand_id=${nokia}`)
      expect(none.data).toEqual([])
      expect(none.meta).toMatchObject({ total: 0, from: null, to: null, last_page: 1 })
    })

    it('combines filters', async () => {
      const page = await okJson<PageBody<Model>>(ctx, token, `/models?filter[name]=16&filter[brand]=${apple}`)
      expect(names(page)).toEqual(['iPhone 16 Pro'])
      const crossed = await okJson<PageBody<Model>>(
        ctx,
        token,
        `/models?filter[name]=galaxy&brand_id=${apple}`,
      )
      expect(crossed.data).toEqual([])
    })

    it('accepts include=brand, repeated too, as include=models,models is on brands', async () => {
      const page = await okJson<PageBody<Model>>(ctx, token, '/models?include=brand,brand&per_page=1')
      expect(page.data[0]?.brand).toBeDefined()
    })

    it('accepts include=brand and always embeds the brand', async () => {
      const page = await okJson<PageBody<Model>>(ctx, token, '/models?include=brand&per_page=100')
      expect(page.data).toHaveLength(4)
      expect(page.data[0]).toEqual(model('iPhone 15'))
    })

    it('keeps the filter parameters in every page link', async () => {
      const page = await okJson<PageBody<Model>>(
        ctx,
        token,
        `/models?filter[name]=galaxy&brand_id=${samsung}&include=brand&per_page=1`,
      )
      expect(names(page)).toEqual(['Galaxy A15'])
      expect(page.meta.path).toBe(`${base}/models`)
      const links = [page.links.first, page.links.last, page.links.next, ...page.meta.links.map((l) => l.url)]
      for (const link of links.filter((l): l is string => l !== null)) {
        const url = new URL(link)
        expect(link.split('?')[0]).toBe(page.meta.path)
        expect(url.searchParams.get('filter[name]')).toBe('galaxy')
        expect(url.searchParams.get('brand_id')).toBe(String(samsung))
        expect(url.searchParams.get('include')).toBe('brand')
        expect(url.searchParams.get('per_page')).toBe('1')
        expect(url.searchParams.getAll('page')).toHaveLength(1)
        expect(link).toMatch(/&page=\d+$/)
      }
      expect(new URL(page.links.next as string).searchParams.get('page')).toBe('2')

      const next = new URL(page.links.next as string)
      const second = await okJson<PageBody<Model>>(ctx, token, `${next.pathname}${next.search}`)
      expect(names(second)).toEqual(['Galaxy S25'])
    })

    it.each([
      '%',
      '_',
      '%%',
      '_a',
      "'",
      "' OR '1'='1",
      '\\',
      '\\%',
      'Galaxy%',
      'i_hone',
      'Galáxy',
      'ГАЛАКСИ',
      '📱',
      '漢字',
    ])('treats filter[name]=%s literally', async (name) => {
      const response = await get(ctx, token, `/models?filter[name]=${encodeURIComponent(name)}`)
      expect(response.statusCode).toBe(200)
      const page = response.json() as PageBody<Model>
      expect(page.data).toEqual([])
      expect(page.meta.total).toBe(0)
    })

    it('refuses a filter[name] over 255 characters', async () => {
      const response = await get(ctx, token, `/models?filter[name]=${'a'.repeat(256)}`)
      expect(response.statusCode).toBe(422)
      expect(Object.keys(response.json().errors)).toEqual(['filter[name]'])
    })

    it.each([
      ['brand_id=abc', 'brand_id', 'The brand id field must be an integer.'],
      ['brand_id=0', 'brand_id', 'The brand id field must be at least 1.'],
      ['brand_id=99999999999', 'brand_id', 'The brand id field must not be greater than 2147483647.'],
      ['filter[brand]=abc', 'filter[brand]', 'The filter[brand] field must be an integer.'],
      ['include=models', 'include', 'The include field format is invalid.'],
      ['per_page=101', 'per_page', 'The per page field must not be greater than 100.'],
    ])('refuses %s with 422', async (query, key, message) => {
      const response = await get(ctx, token, `/models?${query}`)
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(
        expectedError(response, 'validation_failed', { message, errors: { [key]: [message] } }),
      )
    })
  })

  describe('GET /models/{id}', () => {
    it('returns the model with its brand', async () => {
      const galaxy = await okJson<Model>(ctx, token, `/models/${catalog.model('Galaxy S25').id}`)
      expect(galaxy).toEqual(model('Galaxy S25'))
      expect(galaxy.meta.link).toMatch(ABSOLUTE)
      expect(galaxy.meta.link.endsWith(`/models/${galaxy.id}`)).toBe(true)
    })

    it('accepts include=brand', async () => {
      const found = await okJson<Model>(ctx, token, `/models/${catalog.model('iPhone 15').id}?include=brand`)
      expect(found).toEqual(model('iPhone 15'))
    })

    it('answers 404 for an inactive model', async () => {
      const response = await get(ctx, token, `/models/${catalog.model('iPhone 12').id}`)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: 'Model not found.' }))
    })

    it.each(['/models/987654', '/models/abc', '/models/99999999999', '/models/-1'])(
      'answers 404 for %s',
      async (url) => {
        const response = await get(ctx, token, url)
        expect(response.statusCode).toBe(404)
        expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
      },
    )
  })

  describe('partner scoping', () => {
    it('hides a model marked unavailable for one partner only', async () => {
      const a = await partnerWithToken(ctx.app, ctx.db)
      const b = await partnerWithToken(ctx.app, ctx.db)
      const s25 = catalog.model('Galaxy S25').id
      await setUnavailable(ctx.db, a.partner.id, s25)

      const listA = await okJson<PageBody<Model>>(ctx, a.token, '/models')
      expect(names(listA)).toEqual(['iPhone 15', 'iPhone 16 Pro', 'Galaxy A15'])
      expect(listA.meta.total).toBe(3)
      const filteredA = await okJson<PageBody<Model>>(ctx, a.token, '/models?filter[name]=s25')
      expect(filteredA.data).toEqual([])
      expect((await get(ctx, a.token, `/models/${s25}`)).statusCode).toBe(404)
      const brandA = await okJson<Brand>(ctx, a.token, `/brands/${samsung}?include=models,modelCount`)
      expect(brandA.models_count).toBe(1)
      expect(brandA.models?.map((m) => m.name)).toEqual(['Galaxy A15'])

      const listB = await okJson<PageBody<Model>>(ctx, b.token, '/models')
      expect(listB.meta.total).toBe(4)
      expect(await okJson<Model>(ctx, b.token, `/models/${s25}`)).toEqual(model('Galaxy S25'))
      const brandB = await okJson<Brand>(ctx, b.token, `/brands/${samsung}?include=modelCount`)
      expect(brandB.models_count).toBe(2)
    })

    it('drops a brand whose every model is unavailable for the partner', async () => {
      const a = await partnerWithToken(ctx.app, ctx.db)
      const b = await partnerWithToken(ctx.app, ctx.db)
      await setUnavailable(ctx.db, a.partner.id, catalog.model('Galaxy S25').id)
      await setUnavailable(ctx.db, a.partner.id, catalog.model('Galaxy A15').id)

      const brandsA = await okJson<PageBody<Brand>>(ctx, a.token, '/brands')
      expect(names(brandsA)).toEqual(['Apple'])
      expect(brandsA.meta.total).toBe(1)
      expect((await get(ctx, a.token, `/brands/${samsung}`)).statusCode).toBe(404)
      const modelsA = await okJson<PageBody<Model>>(ctx, a.token, `/models?brand_id=${samsung}`)
      expect(modelsA.data).toEqual([])

      const brandsB = await okJson<PageBody<Brand>>(ctx, b.token, '/brands')
      expect(names(brandsB)).toEqual(['Apple', 'Samsung'])
      expect((await get(ctx, b.token, `/brands/${samsung}`)).statusCode).toBe(200)
    })

    it('answers 404 for a model attributed only to another partner', async () => {
      const a = await partnerWithToken(ctx.app, ctx.db)
      const b = await partnerWithToken(ctx.app, ctx.db)
      const pro = catalog.model('iPhone 16 Pro').id
      await retryingTransaction(ctx.db, (trx) =>
        trx
          .deleteFrom('partner_models')
          .where('partner_id', '=', a.partner.id)
          .where('model_id', '=', pro)
          .execute(),
      )

      const response = await get(ctx, a.token, `/models/${pro}`)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: 'Model not found.' }))
      const listA = await okJson<PageBody<Model>>(ctx, a.token, `/models?brand_id=${apple}`)
      expect(names(listA)).toEqual(['iPhone 15'])
      const brandA = await okJson<Brand>(ctx, a.token, `/brands/${apple}?include=models,modelCount`)
      expect(brandA.models_count).toBe(1)
      expect(brandA.models?.map((m) => m.name)).toEqual(['iPhone 15'])

      expect(await okJson<Model>(ctx, b.token, `/models/${pro}`)).toEqual(model('iPhone 16 Pro'))
    })

    it('answers 404 for an inactive model to every partner', async () => {
      const a = await partnerWithToken(ctx.app, ctx.db)
      const iphone12 = catalog.model('iPhone 12').id
      expect((await get(ctx, a.token, `/models/${iphone12}`)).statusCode).toBe(404)
      const list = await okJson<PageBody<Model>>(ctx, a.token, '/models?filter[name]=iphone 12')
      expect(list.data).toEqual([])
    })
  })

  describe('authentication', () => {
    it.each(['/brands', '/brands/1', '/brands/1?include=models', '/models', '/models/1'])(
      'GET %s without a token answers 401',
      async (url) => {
        const response = await get(ctx, null, url)
        expect(response.statusCode).toBe(401)
        expect(response.json()).toEqual(
          expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
        )
        expect(response.headers['www-authenticate']).toBe('Bearer')
      },
    )

    it.each(['Bearer not-a-jwt', 'Basic Zm9vOmJhcg==', 'Bearer', `bearer ${'x'.repeat(10)}`])(
      'GET /brands with authorization "%s" answers 401',
      async (authorization) => {
        const response = await get(ctx, null, '/brands', { authorization })
        expect(response.statusCode).toBe(401)
        expect(response.json()).toEqual(
          expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
        )
      },
    )

    it('checks the token before validating the query', async () => {
      const response = await get(ctx, null, '/brands?per_page=0')
      expect(response.statusCode).toBe(401)
    })
  })

  describe('links', () => {
    it("follow the request's host when no public URL is configured", async () => {
      const page = await okJson<PageBody<Brand>>(ctx, token, '/brands')
      const response = await get(ctx, token, '/brands?per_page=1', { host: 'partner-api.test:8443' })
      expect(response.statusCode).toBe(200)
      const hosted = response.json() as PageBody<Brand>
      expect(hosted.meta.path).toBe('http://partner-api.test:8443/brands')
      expect(hosted.data[0]?.meta.link).toBe(`http://partner-api.test:8443/brands/${apple}`)
      expect(page.meta.path).not.toContain('partner-api.test')
    })
  })
})

describe('catalog with AMPARO_PUBLIC_URL', () => {
  const PUBLIC = 'https://partners.amparo.example/api'
  let ctx: TestContext
  let catalog: Catalog
  let token: string

  beforeAll(async () => {
    // A trailing slash in the setting must not double the slash in links.
    ctx = await createTestApp({ env: { AMPARO_PUBLIC_URL: `${PUBLIC}/` } })
    await ctx.app.ready()
    catalog = await seedCatalog(ctx.db)
    ;({ token } = await partnerWithToken(ctx.app, ctx.db))
  })
  afterAll(() => ctx?.close())

  it('builds every list address from it, whatever the request host', async () => {
    const response = await get(ctx, token, '/brands?per_page=1', { host: 'internal-node:3000' })
    expect(response.statusCode).toBe(200)
    const page = response.json() as PageBody<Brand>
    const apple = catalog.model('iPhone 15').brand_id
    expect(page.meta.path).toBe(`${PUBLIC}/brands`)
    expect(page.links).toEqual({
      first: `${PUBLIC}/brands?per_page=1&page=1`,
      last: `${PUBLIC}/brands?per_page=1&page=2`,
      prev: null,
      next: `${PUBLIC}/brands?per_page=1&page=2`,
    })
    expect(page.data).toEqual([{ id: apple, name: 'Apple', meta: { link: `${PUBLIC}/brands/${apple}` } }])
    expect(response.body).not.toContain('internal-node')
  })

  it('builds model and brand links from it', async () => {
    const galaxy = catalog.model('Galaxy S25')
    const found = await okJson<Model>(ctx, token, `/models/${galaxy.id}`)
    expect(found.meta.link).toBe(`${PUBLIC}/models/${galaxy.id}`)
    expect(found.brand.meta.link).toBe(`${PUBLIC}/brands/${galaxy.brand_id}`)
    const brand = await okJson<Brand>(ctx, token, `/brands/${galaxy.brand_id}?include=models`)
    expect(brand.models?.map((m) => m.meta.link)).toContain(`${PUBLIC}/models/${galaxy.id}`)
  })
})

describe('catalog ordering and literal names', () => {
  let ctx: TestContext
  let token: string

  beforeAll(async () => {
    ctx = await createTestApp()
    await ctx.app.ready()
    const catalog = {
      brands: [
        { name: 'Xiaomi', models: [{ name: 'Redmi 13', default_lmi: 999 }] },
        { name: 'realme', models: [{ name: 'C55', default_lmi: 899 }] },
        { name: 'Ótimo', models: [{ name: 'Édge', default_lmi: 500 }] },
        { name: 'ábaco', models: [{ name: 'Úno', default_lmi: 500 }] },
        {
          name: 'vivo',
          models: [
            { name: 'Y36', default_lmi: 1099 },
            { name: 'Ação Ünicode', default_lmi: 100 },
          ],
        },
        {
          name: 'Apple',
          models: [
            { name: 'zeta', default_lmi: 100 },
            { name: 'Beta', default_lmi: 100 },
            { name: 'alpha', default_lmi: 100 },
            { name: '100% Pro_Max', default_lmi: 100 },
            { name: "O'Brien \\ Edition", default_lmi: 100 },
          ],
        },
      ],
    }
    await retryingTransaction(ctx.db, (trx) => importCatalog(trx, catalog, '2026-11-21T12:00:00.000Z'))
    ;({ token } = await partnerWithToken(ctx.app, ctx.db))
  })
  afterAll(() => ctx?.close())

  it('orders brands by name regardless of case, accented capitals too, on every database', async () => {
    const page = await okJson<PageBody<Brand>>(ctx, token, '/brands')
    // Code point order of the lowered names: `á` (U+00E1) before `ó` (U+00F3), both after `x`.
    expect(names(page)).toEqual(['Apple', 'realme', 'vivo', 'Xiaomi', 'ábaco', 'Ótimo'])
  })

  it('orders models by brand and name regardless of case', async () => {
    const page = await okJson<PageBody<Model>>(ctx, token, '/models?per_page=100')
    expect(names(page)).toEqual([
      '100% Pro_Max',
      'alpha',
      'Beta',
      "O'Brien \\ Edition",
      'zeta',
      'C55',
      'Ação Ünicode',
      'Y36',
      'Redmi 13',
      'Úno',
      'Édge',
    ])
  })

  it.each([
    ['%', ['100% Pro_Max']],
    ['0% p', ['100% Pro_Max']],
    ['_', ['100% Pro_Max']],
    ['p_o', []],
    ['pro_max', ['100% Pro_Max']],
    ["o'brien", ["O'Brien \\ Edition"]],
    ['\\', ["O'Brien \\ Edition"]],
    [' \\ e', ["O'Brien \\ Edition"]],
    // Letters match in any case, accented ones too, on every database.
    ['Ação Ünicode', ['Ação Ünicode']],
    ['ção Ü', ['Ação Ünicode']],
    ['aç', ['Ação Ünicode']],
    ['AÇÃO ÜNICODE', ['Ação Ünicode']],
    ['ünicode', ['Ação Ünicode']],
    ['édge', ['Édge']],
    ['ÚNO', ['Úno']],
  ])('filter[name]=%s matches the literal text', async (name, expected) => {
    const page = await okJson<PageBody<Model>>(ctx, token, `/models?filter[name]=${encodeURIComponent(name)}`)
    expect(names(page)).toEqual(expected)
  })
})

describe('page links keep only what the client sent', () => {
  let ctx: TestContext
  let token: string

  beforeAll(async () => {
    ctx = await createTestApp()
    await seedCatalog(ctx.db)
    ;({ token } = await partnerWithToken(ctx.app, ctx.db))
  })
  afterAll(() => ctx.close())

  it('adds no per_page the client did not send', async () => {
    const response = await ctx.app.inject({ url: '/models', headers: bearer(token) })
    const { links, meta } = response.json()
    expect(links.first).toMatch(/\/models\?page=1$/)
    expect(meta.per_page).toBe(15)
  })

  it('keeps the filters as sent, page last', async () => {
    const response = await ctx.app.inject({
      url: '/models?filter%5Bname%5D=galaxy&per_page=1',
      headers: bearer(token),
    })
    expect(response.json().links.next).toMatch(/\/models\?filter%5Bname%5D=galaxy&per_page=1&page=2$/)
  })
})
