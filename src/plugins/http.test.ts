import { describe, expect, it } from 'vitest'
import { nestsDeeperThan } from './http.js'

const bytes = (text: string) => Buffer.from(text)

describe('nestsDeeperThan', () => {
  it('counts arrays and objects opened inside one another', () => {
    expect(nestsDeeperThan(bytes('[[[]]]'), 3)).toBe(false)
    expect(nestsDeeperThan(bytes('[[[[]]]]'), 3)).toBe(true)
    expect(nestsDeeperThan(bytes('{"a":{"b":[{}]}}'), 4)).toBe(false)
    expect(nestsDeeperThan(bytes('{"a":{"b":[{"c":[]}]}}'), 4)).toBe(true)
  })

  it('counts depth, not how many there are', () => {
    expect(nestsDeeperThan(bytes('[[],[],[],[],[],[]]'.repeat(1000)), 2)).toBe(false)
  })

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(bytes('{"a":"[[[[[[{{{{"}'), 1)).toBe(false)
    expect(nestsDeeperThan(bytes('{"a":"\\"[[[[[[","b":"\\\\"}'), 1)).toBe(false)
    expect(nestsDeeperThan(bytes('{"a":"\\\\",  "b":[[]]}'), 2)).toBe(true)
  })
})
