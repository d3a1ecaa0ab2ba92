import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from './helpers/test-app.js'
import { bearer, contractSubscription, type Seller, seedCatalog, seller } from './helpers/world.js'

// Error messages in Portuguese (README, Using the API: errors in Portuguese): the same answers,
// code and field keys unchanged, `message` and field errors in the language Accept-Language prefers.

const ctx = useTestApp()
let s: Seller
let galaxy: number

beforeAll(async () => {
  galaxy = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  s = await seller(ctx)
})

type Call = {
  method: 'GET' | 'POST'
  url: string
  payload?: object | string
  token?: boolean
  headers?: object
}

async function inBoth(call: Call) {
  const send = (language?: string) =>
    ctx.app.inject({
      method: call.method,
      url: call.url,
      headers: {
        ...(call.token === false ? {} : bearer(s.token)),
        ...(typeof call.payload === 'string' && { 'content-type': 'application/json' }),
        ...(language && { 'accept-language': language }),
        ...call.headers,
      },
      ...(call.payload !== undefined && { payload: call.payload }),
    })
  const [en, pt] = [await send(), await send('pt-BR')]
  expect(pt.statusCode).toBe(en.statusCode)
  expect(pt.headers['content-language']).toBe('pt-BR')
  expect(en.headers['content-language']).toBeUndefined()
  const [enBody, ptBody] = [en.json(), pt.json()]
  expect(ptBody.code).toBe(enBody.code)
  expect(Object.keys(ptBody.errors ?? {})).toEqual(Object.keys(enBody.errors ?? {}))
  return { en: enBody, pt: ptBody }
}

describe('Accept-Language: pt-BR', () => {
  it('401 without a token', async () => {
    const { en, pt } = await inBoth({ method: 'GET', url: '/subscriptions', token: false })
    expect(en.message).toBe('Unauthenticated.')
    expect(pt.message).toBe('Não autenticado.')
  })

  it('404 of a route and of a resource', async () => {
    const route = await inBoth({ method: 'GET', url: '/nowhere' })
    expect(route.pt.message).toBe('Rota GET /nowhere não encontrada.')
    const resource = await inBoth({ method: 'GET', url: '/subscriptions/999999' })
    expect(resource.en.message).toBe('Subscription not found.')
    expect(resource.pt.message).toBe('Assinatura não encontrada.')
  })

  it('422 with field errors, the keys unchanged', async () => {
    const { en, pt } = await inBoth({ method: 'POST', url: '/customers', payload: {} })
    expect(en.errors.name).toEqual(['The name field is required.'])
    expect(pt.errors.name).toEqual(['O campo name é obrigatório.'])
    expect(pt.message).toMatch(/^O campo \S+ é obrigatório\. \(e mais \d+ erros\)$/)
  })

  it('an IMEI without its check digit: the message names the Luhn digit in both languages', async () => {
    const body = {
      model_id: galaxy,
      customer_id: s.customerId,
      imei: '490154203237519',
      payment: { method: 'pix' },
    }
    const { en, pt } = await inBoth({ method: 'POST', url: '/annual-plans', payload: body })
    expect(en.code).toBe('validation_failed')
    expect(en.errors.imei[0]).toContain('check digit (Luhn)')
    expect(pt.errors.imei[0]).toBe(
      'O campo imei deve ser um IMEI válido: 15 dígitos, o último um dígito verificador (Luhn).',
    )
  })

  it('400 for a body that is not JSON', async () => {
    const { en, pt } = await inBoth({ method: 'POST', url: '/customers', payload: '{"name":' })
    expect(en.message).toBe('The request body is not valid JSON.')
    expect(pt.message).toBe('O corpo da requisição não é um JSON válido.')
  })

  it('422 invalid_state: the state refusal in Portuguese', async () => {
    const pending = await contractSubscription(ctx, s, galaxy)
    const { en, pt } = await inBoth({ method: 'GET', url: `/subscriptions/${pending.id}/certificate` })
    expect(en.code).toBe('invalid_state')
    expect(en.message).toMatch(/^The subscription is pending\./)
    expect(pt.message).toBe(
      'A assinatura está “Pendente”. Um certificado só é emitido para um contrato em vigor: uma assinatura paga ou um plano anual pago ou protegido.',
    )
    expect(pt.errors.status).toEqual([pt.message])
  })
})

describe('requests Node’s parser refuses, before any route', () => {
  /** The raw answer to `request` sent as is to the listening app. */
  async function raw(request: string) {
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined)
    const port = address
      ? Number(new URL(address).port)
      : Number((ctx.app.server.address() as { port: number }).port)
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request))
      let received = ''
      socket.on('data', (chunk) => {
        received += chunk
      })
      socket.on('close', () => resolve(received))
      socket.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' ? resolve(received) : reject(error),
      )
    })
    return {
      head: text.slice(0, text.indexOf('\r\n\r\n')),
      body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)),
    }
  }

  it('431: headers over 16 KB, in the language the refused request asked for', async () => {
    const request = (language: string) =>
      `GET /brands HTTP/1.1\r\nHost: x\r\nAccept-Language: ${language}\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`
    const pt = await raw(request('pt-BR'))
    expect(pt.head).toMatch(/^HTTP\/1\.1 431 /)
    expect(pt.head).toMatch(/\r\ncontent-language: pt-BR\r\n/)
    expect(pt.body).toMatchObject({
      code: 'headers_too_large',
      message: 'Cabeçalhos da requisição grandes demais (no máximo 16 KB, com a URL).',
    })
    const en = await raw(request('en'))
    expect(en.head).not.toMatch(/content-language/)
    expect(en.body.message).toBe('Request header fields too large (at most 16 KB, the URL included).')
  })

  it('400: a malformed request', async () => {
    const pt = await raw('GET /brands HTTP/1.1\r\nHost: x\r\nAccept-Language: pt-BR\r\nBad Header\r\n\r\n')
    expect(pt.head).toMatch(/^HTTP\/1\.1 400 /)
    expect(pt.body).toMatchObject({ code: 'bad_request', message: 'Requisição HTTP malformada.' })
  })

  it('400, 413 and 415 from the body parser', async () => {
    const post = (payload: string, contentType = 'application/json') =>
      inBoth({ method: 'POST', url: '/customers', payload, headers: { 'content-type': contentType } })
    const bad = await post('{"name":')
    expect(bad.pt.message).toBe('O corpo da requisição não é um JSON válido.')
    const large = await post(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }))
    expect(large.pt.message).toBe('O corpo da requisição não pode ter mais de 1 MiB.')
    const latin1 = await post('{}', 'application/json; charset=latin1')
    expect(latin1.en.message).toBe('The request body must be sent as application/json in UTF-8.')
    expect(latin1.pt.message).toBe('O corpo da requisição deve ser enviado como application/json em UTF-8.')
    const text = await post('x', 'text/plain')
    expect(text.pt.message).toBe('O corpo da requisição deve ser enviado como application/json.')
  })
})

describe('which language', () => {
  const message = async (language: string) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/subscriptions',
      headers: { 'accept-language': language },
    })
    return { message: response.json().message, header: response.headers['content-language'] }
  }

  it('honours pt, pt-PT and q-values; English otherwise', async () => {
    expect(await message('pt')).toEqual({ message: 'Não autenticado.', header: 'pt-BR' })
    expect(await message('pt-PT')).toEqual({ message: 'Não autenticado.', header: 'pt-BR' })
    expect(await message('en;q=0.5, pt-BR;q=0.9')).toEqual({ message: 'Não autenticado.', header: 'pt-BR' })
    expect(await message('pt-BR;q=0.5, en')).toEqual({ message: 'Unauthenticated.', header: undefined })
    expect(await message('fr')).toEqual({ message: 'Unauthenticated.', header: undefined })
  })

  it('leaves successful answers and the OpenAPI document as they are', async () => {
    const en = await ctx.app.inject({ method: 'GET', url: '/openapi.json' })
    const pt = await ctx.app.inject({
      method: 'GET',
      url: '/openapi.json',
      headers: { 'accept-language': 'pt-BR' },
    })
    expect(pt.body).toBe(en.body)
    expect(pt.headers['content-language']).toBeUndefined()
  })
})
