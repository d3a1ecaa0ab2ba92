import { describe, expect, it } from 'vitest'
import { newProtocol } from './protocol.js'

describe('newProtocol', () => {
  it('is CAN- and 10 base32 characters', () => {
    // Written out, not imported: the module's own pattern would follow any change to it.
    expect(newProtocol()).toMatch(/^CAN-[A-Z2-7]{10}$/)
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
