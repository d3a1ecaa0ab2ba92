import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken } from './helpers/world.js'

// A list refuses the query parameters it does not know (README, Using the API: pagination): a
// misspelt filter or `per_page` on the cursor list of events is a 422 naming each, never ignored.

const ctx = useTestApp()
let token: string

beforeAll(async () => {
  token = (await partnerWithToken(ctx.app, ctx.db)).token
})

const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers: { ...bearer(token), ...headers } })

describe('unknown query parameters on a list', () => {
  it('answer 422 validation_failed, each one named under errors', async () => {
    const events = await get('/events?per_page=100')
    expect(events.statusCode).toBe(422)
    expect(events.json()).toMatchObject({
      code: 'validation_failed',
      message: 'The per_page query parameter is not known.',
      errors: { per_page: ['The per_page query parameter is not known.'] },
    })

    const misspelt = await get('/subscriptions?filter%5Bstauts%5D=pago&sort=id')
    expect(misspelt.statusCode).toBe(422)
    expect(Object.keys(misspelt.json().errors).sort()).toEqual(['filter[stauts]', 'sort'])
    expect(misspelt.json().message).toMatch(/\(and 1 more error\)$/)

    for (const url of [
      '/claims?page=1&per_pgae=5',
      '/annual-plans?q=1',
      '/shopkeepers?limit=5',
      '/brands?x=1',
    ]) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(422)
    }
  })

  it('leave the known ones, and blank ones, as they were', async () => {
    for (const url of [
      '/events?limit=100',
      '/subscriptions?filter%5Bstatus%5D=pago&page=1&per_page=100',
      '/claims?filter[status]=under_review',
      '/brands?page=&unknown=',
    ]) {
      const response = await get(url)
      expect(response.statusCode, `${url} ${response.body}`).toBe(200)
    }
  })

  it('are named in Portuguese when asked', async () => {
    const response = await get('/events?per_page=100', { 'accept-language': 'pt-BR' })
    expect(response.json().errors).toEqual({
      per_page: ['O parâmetro de consulta per_page não é conhecido.'],
    })
  })
})
