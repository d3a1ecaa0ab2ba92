import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'
import { TEST_CONSOLE_SECRET_KEY } from './config-console.js'
import { ConfigError, estimatedStrengthBits } from './config-values.js'

// What production accepts: a signing key of random base64, and the public address.
const STRONG_KEY = 'k1=Qm9vaDR6cXh2N2Vrc2pHdFpMdzJ5YVJtTlBmVTk4Q2RIY1hq'
const PRODUCTION = {
  AMPARO_ENV: 'production',
  AMPARO_JWT_KEYS: STRONG_KEY,
  AMPARO_PUBLIC_URL: 'https://api.example.com',
}

describe('loadConfig in production', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...PRODUCTION, ...env })
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      return (error as Error).message
    }
    return 'started'
  }

  it('starts with a random key and a public address', () => {
    expect(refusal({})).toBe('started')
    expect(refusal({ AMPARO_JWT_KEYS: `k2=${randomBytes(48).toString('base64')},${STRONG_KEY}` })).toBe(
      'started',
    )
  })

  it.each([
    ['one letter repeated', `k1=${'a'.repeat(40)}`],
    ['a short alphabet', `k1=${'0123456789'.repeat(6)}`],
    ['16 bytes of hex (about 116 bits)', `k1=${randomBytes(16).toString('hex')}`],
    ['a keyboard row', `k1=${'qwertyuiop'.repeat(4)}`],
    ['a keyboard walk', 'k1=1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p'],
    ['the keyboard, row by row', 'k1=qwertyuiopasdfghjklzxcvbnm1234567890'],
    ['a phrase repeated', 'k1=correcthorsebatterystaplecorrecthorse'],
    ['the alphabet and digits in order', 'k1=abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a strong key followed by a weak one', `${STRONG_KEY},old=${'x'.repeat(32)}`],
  ])('refuses a guessable signing key (%s) with one line that names its kid, not its secret', (_, keys) => {
    const message = refusal({ AMPARO_JWT_KEYS: keys })
    expect(message).toMatch(
      /^Invalid AMPARO_JWT_KEYS: the secret of kid (k1|old) is guessable \(about \d+ bits by zxcvbn\); production needs 128\+ bits, e\.g\. (k1|old)=\$\(openssl rand -base64 48\)$/,
    )
    expect(message).not.toContain('\n')
    for (const pair of keys.split(',')) expect(message).not.toContain(pair.slice(pair.indexOf('=') + 1))
  })

  it('accepts the same weak key in test, where no real partner signs in', () => {
    expect(loadConfig({ AMPARO_JWT_KEYS: `k1=${'a'.repeat(40)}` }).jwtKeys).toHaveLength(1)
  })

  it.each(['http://api.example.com', 'http://api.example.com/v1'])(
    'refuses a public URL that is not https: %s',
    (url) => {
      expect(refusal({ AMPARO_PUBLIC_URL: url })).toMatch(
        /^Invalid AMPARO_PUBLIC_URL: production needs an https address, e\.g\. https:\/\/api\.example\.com$/,
      )
    },
  )

  it('requires AMPARO_PUBLIC_URL, so that links never follow a Host header', () => {
    expect(refusal({ AMPARO_PUBLIC_URL: '' })).toBe(
      'AMPARO_PUBLIC_URL is required when AMPARO_ENV=production (the base of every link, e.g. https://api.example.com)',
    )
  })

  it('accepts any output of openssl rand -hex 32 or -base64 48 (random keys, many times)', () => {
    // zxcvbn takes a second or more a key on a busy machine: a dozen of each, and time to spare.
    for (let i = 0; i < 12; i++) {
      expect(refusal({ AMPARO_JWT_KEYS: `k1=${randomBytes(32).toString('hex')}` })).toBe('started')
      expect(refusal({ AMPARO_JWT_KEYS: `k1=${randomBytes(48).toString('base64')}` })).toBe('started')
    }
  }, 180_000)

  it('accepts a random hex key that happens to use 15 of the 16 digits (about one in 40 does)', () => {
    // One such key, drawn once and kept: zxcvbn scores fresh draws from ≈ 196 to 250 bits, so a
    // new draw each run made the margin below fail about once in a few hundred runs.
    const key = '62a4cb1127d8038bc3bd11879be970c319d40ed996075ec619e79421a2e534b8'
    expect(new Set(key).size).toBe(15)
    expect(refusal({ AMPARO_JWT_KEYS: `k1=${key}` })).toBe('started')
    expect(estimatedStrengthBits(key)).toBeGreaterThan(200)
  })
})

describe('AMPARO_CONSOLE_SECRET_KEY in production', () => {
  // The key the operators' TOTP seeds are sealed under: held to the JWT keys' strength.
  const withConsole = { ...PRODUCTION, AMPARO_CONSOLE_PORT: '4001' }
  const refusal = (key: string) => {
    try {
      loadConfig({ ...withConsole, AMPARO_CONSOLE_SECRET_KEY: key })
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      return (error as Error).message
    }
    return 'started'
  }

  it.each([
    ['one letter repeated', 'a'.repeat(48)],
    ['a short alphabet', '0123456789'.repeat(5)],
    ['a keyboard walk', '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p'],
    ['a phrase repeated', 'correcthorsebatterystaplecorrecthorse'],
  ])('refuses a guessable key (%s) in one line that does not echo it', (_, key) => {
    const message = refusal(key)
    expect(message).toMatch(
      /^Invalid AMPARO_CONSOLE_SECRET_KEY: guessable \(about \d+ bits by zxcvbn\); production needs 128\+ bits, e\.g\. \$\(openssl rand -base64 48\)$/,
    )
    expect(message).not.toContain(key)
  })

  it("refuses the test environment's published key, which test itself uses", () => {
    expect(refusal(TEST_CONSOLE_SECRET_KEY)).toBe(
      "Invalid AMPARO_CONSOLE_SECRET_KEY: that is the test environment's published key; production needs its own, e.g. $(openssl rand -base64 48)",
    )
    expect(loadConfig({}).consoleSecretKey).toBe(TEST_CONSOLE_SECRET_KEY)
    // A production without a console checks a key it is given all the same.
    expect(() => loadConfig({ ...PRODUCTION, AMPARO_CONSOLE_SECRET_KEY: TEST_CONSOLE_SECRET_KEY })).toThrow(
      /published key/,
    )
  })

  it('accepts random keys (openssl rand -base64 48 and -hex 32), and weak ones in test', () => {
    for (let i = 0; i < 4; i++) {
      expect(refusal(randomBytes(48).toString('base64'))).toBe('started')
      expect(refusal(randomBytes(32).toString('hex'))).toBe('started')
    }
    expect(loadConfig({ AMPARO_CONSOLE_SECRET_KEY: 'a'.repeat(48) }).consoleSecretKey).toBe('a'.repeat(48))
  }, 60_000)
})
