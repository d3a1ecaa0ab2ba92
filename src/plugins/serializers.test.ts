import { describe, expect, it } from 'vitest'
import { sharedSerializers } from './serializers.js'

const route = (schema: object, url = '/a') => ({ method: 'GET', url, httpStatus: '200', schema })

describe('sharedSerializers', () => {
  it('compiles an equal schema once for every route, and serializes by it', () => {
    const compile = sharedSerializers()([], {})
    const money = { type: 'object', properties: { lmi: { type: 'number' } } }
    const first = compile(route(money, '/subscriptions'))
    const again = compile(route(structuredClone(money), '/annual-plans'))
    expect(again).toBe(first)
    expect(first({ lmi: 4500, secret: 'x' })).toBe('{"lmi":4500}')
  })

  it('keeps distinct schemas apart', () => {
    const compile = sharedSerializers()([], {})
    const one = compile(route({ type: 'object', properties: { a: { type: 'string' } } }))
    const other = compile(route({ type: 'object', properties: { b: { type: 'string' } } }))
    expect(other).not.toBe(one)
    expect(other({ a: 'x', b: 'y' })).toBe('{"b":"y"}')
  })
})
