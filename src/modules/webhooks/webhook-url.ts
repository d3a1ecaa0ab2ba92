import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent'

// Webhook URL rules (README, Webhooks). In production only public unicast addresses may be reached: never
// loopback, private, link-local (cloud metadata), shared (CGNAT), unique-local, multicast,
// unspecified or reserved ones. They are checked when the endpoint is registered (DNS resolved
// here) and again when each connection is made (the agents below), since DNS can change.

export type Environment = 'test' | 'production'

export const MAX_URL_LENGTH = 2048

/** Loopback, which the test environment also allows, so that a partner can try it locally. */
// `::1` first: listed as a plain address it is compared as text, before the IPv4 range (which
// request-filtering-agent would try, and warn about, for an IPv6 address).
const LOOPBACK = ['::1', '127.0.0.0/8']

/** Why `url` may not be an endpoint, or null when it may. */
export async function refusedUrl(url: string, env: Environment): Promise<string | null> {
  const shape = refusedShape(url, env)
  if (shape) return shape
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
    } catch {
      // Offline sandboxes cannot resolve anything: there the delivery fails and retries instead.
      return env === 'production' ? 'The url host name does not resolve.' : null
    }
  }
  const refused = addresses.find((address) => !reachable(address, env))
  return refused ? `The url must not point to a private or reserved address (${refused}).` : null
}

/** The checks that need no DNS: scheme, credentials, length. */
export function refusedShape(url: string, env: Environment): string | null {
  if (url.length > MAX_URL_LENGTH) return `The url must not be greater than ${MAX_URL_LENGTH} characters.`
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'The url must be a valid absolute URL.'
  }
  if (parsed.protocol !== 'https:' && !(env === 'test' && parsed.protocol === 'http:')) {
    return env === 'production' ? 'The url must use https.' : 'The url must use http or https.'
  }
  if (parsed.username || parsed.password) return 'The url must not contain credentials.'
  if (!parsed.hostname) return 'The url must be a valid absolute URL.'
  return null
}

/**
 * IPv6 spellings of an IPv4 address that a translator or tunnel would reach. ipaddr.js calls the
 * deprecated IPv4-compatible ones (`::10.0.0.1`, which URLs write `[::a00:1]`) unicast; NAT64
 * (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo it names, as non-unicast. All are
 * refused whatever IPv4 address they hold, at registration and by the delivery agents alike; the
 * IPv4-mapped one (`::ffff:10.0.0.1`) is judged as the IPv4 address it is.
 */
const IPV4_COMPATIBLE = '::/96'
const ipv4Compatible = ipaddr.parseCIDR(IPV4_COMPATIBLE)

/** Whether the service may connect to `address` (ipaddr.js names its range). */
export function reachable(address: string, env: Environment): boolean {
  const parsed = ipaddr.process(address)
  const range = parsed.range()
  if (range === 'loopback') return env === 'test'
  if (parsed.kind() === 'ipv6' && parsed.match(ipv4Compatible)) return false
  return range === 'unicast'
}

/**
 * The agents deliveries connect through: they refuse a connection to an address the rules forbid
 * after DNS resolution, whatever the name resolved to when the endpoint was registered. Kept-alive
 * connections make a burst to one receiver cheap. No per-host socket limit: endpoints of several
 * partners may share a host, and one hanging must not queue the others' requests behind it (the
 * claim bounds attempts per endpoint, the worker's lanes the total).
 */
export function deliveryAgents(env: Environment) {
  const options = {
    keepAlive: true,
    // Headers and body leave in one packet rather than waiting out a delayed ACK (≈ 40 ms each).
    noDelay: true,
    allowPrivateIPAddress: false,
    allowMetaIPAddress: false,
    allowIPAddressList: env === 'test' ? LOOPBACK : [],
    denyIPAddressList: [IPV4_COMPATIBLE],
  }
  return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) }
}
