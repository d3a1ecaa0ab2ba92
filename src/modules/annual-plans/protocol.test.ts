import { describe, expect, it } from 'vitest'
import { newProtocol, PROTOCOL_PATTERN } from './protocol.js'

describe('newProtocol', () => {
  it('is CAN- and 10 base32 characters', () => {
    expect(newProtocol()).toMatch(new RegExp(PROTOCOL_PATTERN))
  })

  it('maps each random byte to one character', () => {
    const bytes = Buffer.from([0, 1, 25, 26, 31, 32, 63, 255, 224, 2])
    expect(newProtocol(() => bytes)).toBe('CAN-ABZ27A77AC')
  })

  it('does not repeat', () => {
    const protocols = new Set(Array.from({ length: 1000 }, () => newProtocol()))
    expect(protocols.size).toBe(1000)
  })
})
