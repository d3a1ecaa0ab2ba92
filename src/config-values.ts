import { isIP } from 'node:net'

// The parsing and checks of the settings whose values have a shape of their own (key lists,
// proxy addresses, secrets); config.ts reads the environment and assembles the Config.

export class ConfigError extends Error {}

export interface SigningKey {
  kid: string
  secret: string
}

const MIN_DISTINCT_CHARACTERS = 16
const MIN_ENTROPY_BITS = 128

/** Production's signing secrets must not be what people type (CONTRACT §18). */
export function assertUnguessable({ kid, secret }: SigningKey): void {
  const distinct = new Set(secret).size
  const bits = Math.floor(estimatedEntropyBits(secret))
  if (distinct < MIN_DISTINCT_CHARACTERS || bits < MIN_ENTROPY_BITS) {
    throw new ConfigError(
      `Invalid AMPARO_JWT_KEYS: the secret of kid ${kid} is guessable (${distinct} distinct characters, about ${bits} bits); production needs ${MIN_DISTINCT_CHARACTERS}+ distinct characters and ${MIN_ENTROPY_BITS}+ bits, e.g. ${kid}=$(openssl rand -base64 48)`,
    )
  }
}

/**
 * A secret's entropy as its characters' frequencies suggest: Shannon's entropy per character times
 * its length. It catches what people type (repeats, a short alphabet), not a guessable phrase:
 * `aaaa…` scores 0, 32 random hex digits about 116, 64 random base64 characters about 330.
 */
export function estimatedEntropyBits(secret: string): number {
  const characters = [...secret]
  const counts = new Map<string, number>()
  for (const c of characters) counts.set(c, (counts.get(c) ?? 0) + 1)
  let perCharacter = 0
  for (const count of counts.values()) {
    const p = count / characters.length
    perCharacter -= p * Math.log2(p)
  }
  return perCharacter * characters.length
}

/** An IPv4 or IPv6 address, with an optional CIDR prefix that fits it (`10.0.0.0/8`, `::1`). */
function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128))
}

/** `` / `false`, `true`, or comma-separated addresses and CIDR ranges of the proxies. */
export function parseTrustProxy(value: string): boolean | string[] {
  const trimmed = value.trim()
  if (trimmed === '' || trimmed === 'false') return false
  if (trimmed === 'true') return true
  const addresses = trimmed.split(',').map((a) => a.trim())
  if (!addresses.every(isProxyAddress)) {
    throw new ConfigError(
      'Invalid AMPARO_TRUST_PROXY: expected true, false, or addresses / CIDR ranges separated by commas',
    )
  }
  return addresses
}

/**
 * `kid1=secret1,kid2=secret2`; secrets of at least 32 characters. Only the first `=` of a pair
 * ends the kid: a secret may hold more (base64 pads with them).
 */
export function parseJwtKeys(value: string): SigningKey[] {
  if (!value.trim()) return []
  const keys = value.split(',').map((pair) => {
    const separator = pair.indexOf('=')
    const kid = pair.slice(0, separator).trim()
    const secret = pair.slice(separator + 1).trim()
    if (separator < 0 || !/^[A-Za-z0-9._-]{1,64}$/.test(kid) || secret.length < 32) {
      throw new ConfigError('Invalid AMPARO_JWT_KEYS: expected kid=secret pairs, secrets of 32+ characters')
    }
    return { kid, secret }
  })
  // Tokens name their key by kid alone: a second secret under the same kid would take over
  // signing in one process (the last wins in a Map) and fail verification in another.
  const repeated = keys.find((key, i) => keys.findIndex((other) => other.kid === key.kid) !== i)
  if (repeated) {
    throw new ConfigError(
      `Invalid AMPARO_JWT_KEYS: kid ${repeated.kid} appears twice; each key needs its own kid`,
    )
  }
  return keys
}
