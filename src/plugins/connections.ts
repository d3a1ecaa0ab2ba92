import { BlockList, isIPv4, type Server } from 'node:net'

/**
 * Caps the connections one address holds open at once (README, AMPARO_MAX_CONNECTIONS_PER_ADDRESS):
 * past it, a new one from that address is closed at once. The per-process cap alone let 1,100
 * idle sockets from one address take every place a partner could connect to. One Map entry per
 * address with a connection open; two Map operations a connection.
 *
 * The load balancer's own addresses (AMPARO_TRUST_PROXY) are not capped: every partner's
 * connections come from them. With `AMPARO_TRUST_PROXY=true` any address may be a proxy, so none is.
 */
export function capConnectionsPerAddress(server: Server, max: number, trustProxy: boolean | string[]): void {
  if (max === 0 || trustProxy === true) return
  const proxies = proxyList(trustProxy || [])
  const open = new Map<string, number>()
  server.on('connection', (socket) => {
    const address = plainAddress(socket.remoteAddress)
    if (address === undefined || proxies?.check(address, isIPv4(address) ? 'ipv4' : 'ipv6')) return
    const count = open.get(address) ?? 0
    if (count >= max) {
      socket.destroy()
      return
    }
    open.set(address, count + 1)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left === 0) open.delete(address)
      else open.set(address, left)
    })
  })
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is `10.0.0.1`. */
function plainAddress(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address
}

function proxyList(entries: string[]): BlockList | null {
  if (entries.length === 0) return null
  const list = new BlockList()
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/')
    const type = isIPv4(address) ? 'ipv4' : 'ipv6'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  return list
}
