import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.js'

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    )
  })

  it('writes what JSON.stringify writes for scalars, and null for undefined', () => {
    expect(canonicalJson('é "q"')).toBe(JSON.stringify('é "q"'))
    expect(canonicalJson(1.5)).toBe('1.5')
    expect(canonicalJson(undefined)).toBe('null')
    expect(canonicalJson([])).toBe('[]')
    expect(canonicalJson({})).toBe('{}')
  })

  it('handles a body nested far deeper than the call stack would allow', () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const json = canonicalJson(deep)
    expect(json.length).toBe(200_001)
    expect(json.startsWith('[[[')).toBe(true)
  })
})
