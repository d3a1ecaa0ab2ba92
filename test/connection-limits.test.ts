import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createConsoleApp } from './helpers/console.js'
import { createTestApp, type TestContext, useTestApp } from './helpers/test-app.js'

// Connections one client can hold against a listening server (README, Going live): a cap per
// address beside the per-process one, and no socket kept reading a body nobody will use.
// Every address in 127.0.0.0/8 reaches the loopback interface: 127.0.0.2 plays another client.

const OTHER_ADDRESS = '127.0.0.2'

/** The port `ctx`'s app listens on, once started. */
async function listen(ctx: TestContext): Promise<number> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  return (ctx.app.server.address() as { port: number }).port
}

/** A connected socket; `gone` turns true when the server closes it (it may before anything is sent). */
function open(port: number, localAddress?: string): Promise<Socket & { gone?: boolean }> {
  return new Promise((resolve, reject) => {
    const socket: Socket & { gone?: boolean } = connect({ port, host: '127.0.0.1', localAddress }, () =>
      resolve(socket),
    )
    socket.on('error', () => {})
    socket.once('error', reject)
    socket.on('close', () => {
      socket.gone = true
    })
  })
}

/** What `GET path` on `socket` is answered: its status line, or '' when the server closed it. */
function health(socket: Socket & { gone?: boolean }, path = '/health'): Promise<string> {
  return new Promise((resolve) => {
    if (socket.gone) return resolve('')
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk
      if (text.includes('\r\n\r\n')) resolve(text.slice(0, text.indexOf('\r\n')))
    })
    socket.on('close', () => resolve(''))
    socket.on('error', () => resolve(''))
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
  })
}

describe('open connections from one address', () => {
  const ctx = useTestApp({ env: { AMPARO_MAX_CONNECTIONS: '20', AMPARO_MAX_CONNECTIONS_PER_ADDRESS: '5' } })
  let port: number
  const held: Socket[] = []
  beforeAll(async () => {
    port = await listen(ctx)
  })
  afterAll(() => {
    for (const socket of held) socket.destroy()
  })

  it('are capped (AMPARO_MAX_CONNECTIONS_PER_ADDRESS): idle sockets from one address leave room for a partner', async () => {
    // As many idle sockets as the whole process takes, all from one address.
    for (let i = 0; i < 20; i++) held.push(await open(port, OTHER_ADDRESS))
    const answers = await Promise.all(held.map((socket) => health(socket)))
    expect(answers.filter((line) => line.startsWith('HTTP/1.1 200'))).toHaveLength(5)
    expect(answers.filter((line) => line === '')).toHaveLength(15)

    const partner = await open(port)
    try {
      expect(await health(partner)).toBe('HTTP/1.1 200 OK')
    } finally {
      partner.destroy()
    }
  })
})

describe('open connections to the console from one address', () => {
  it('are capped as on the partner API: idle sockets from one address leave room for an operator', async () => {
    const ctx = await createConsoleApp({
      env: { AMPARO_MAX_CONNECTIONS: '20', AMPARO_MAX_CONNECTIONS_PER_ADDRESS: '5' },
    })
    await ctx.console.listen({ port: 0, host: '127.0.0.1' })
    const { port } = ctx.console.server.address() as { port: number }
    const sockets: Socket[] = []
    const session = (socket: Socket) => health(socket, '/api/session')
    try {
      for (let i = 0; i < 20; i++) sockets.push(await open(port, OTHER_ADDRESS))
      const answers = await Promise.all(sockets.map(session))
      // Not signed in: the five the console kept are answered 401, the others were closed.
      expect(answers.filter((line) => line.startsWith('HTTP/1.1 401'))).toHaveLength(5)
      expect(answers.filter((line) => line === '')).toHaveLength(15)
      const operator = await open(port)
      sockets.push(operator)
      expect(await session(operator)).toBe('HTTP/1.1 401 Unauthorized')
    } finally {
      for (const socket of sockets) socket.destroy()
      await ctx.close()
    }
  })
})

describe('the per-address cap behind a load balancer', () => {
  it('does not count the trusted proxies’ own connections (AMPARO_TRUST_PROXY)', async () => {
    const ctx = await createTestApp({
      env: { AMPARO_MAX_CONNECTIONS_PER_ADDRESS: '2', AMPARO_TRUST_PROXY: `${OTHER_ADDRESS}/32` },
    })
    const port = await listen(ctx)
    const sockets: Socket[] = []
    try {
      for (let i = 0; i < 6; i++) sockets.push(await open(port, OTHER_ADDRESS))
      for (const answer of await Promise.all(sockets.map((socket) => health(socket))))
        expect(answer).toBe('HTTP/1.1 200 OK')
    } finally {
      for (const socket of sockets) socket.destroy()
      await ctx.close()
    }
  })
})

describe('an answer sent before the body has arrived', () => {
  // The default 30 s body deadline: the connection must close long before it.
  const ctx = useTestApp()
  let port: number
  beforeAll(async () => {
    port = await listen(ctx)
  })

  /** Sends `head` and then one byte of body every 100 ms, until the server closes the connection. */
  function trickle(head: string): Promise<{ text: string; closed: boolean }> {
    return new Promise((resolve) => {
      let text = ''
      const socket = connect(port, '127.0.0.1', () => socket.write(`${head}{`))
      const drip = setInterval(() => socket.writable && socket.write(' '), 100)
      const giveUp = setTimeout(() => finish(false), 10_000)
      const finish = (closed: boolean) => {
        clearInterval(drip)
        clearTimeout(giveUp)
        socket.destroy()
        resolve({ text, closed })
      }
      socket.on('data', (chunk) => {
        text += chunk
      })
      socket.on('close', () => finish(true))
      socket.on('error', () => {})
    })
  }

  const post = (path: string, extra = '') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n${extra}\r\n`

  it.each([
    ['401 (no token)', post('/customers'), 401],
    ['404 (no such route)', post('/nowhere'), 404],
    ['413 (announced too large for a login)', post('/auth/login'), 413],
  ])(
    '%s: Connection: close, and the connection closed, not left reading the body',
    async (_, head, status) => {
      const { text, closed } = await trickle(head)
      expect(Number(text.slice(9, 12))).toBe(status)
      expect(text.toLowerCase()).toContain('\r\nconnection: close\r\n')
      expect(closed).toBe(true)
    },
  )

  it('a complete body keeps its connection alive', async () => {
    const socket = await open(port)
    try {
      const answer = await new Promise<string>((resolve) => {
        let text = ''
        socket.on('data', (chunk) => {
          text += chunk
          if (text.includes('}')) resolve(text)
        })
        socket.write(
          'POST /customers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        )
      })
      expect(answer).toMatch(/^HTTP\/1\.1 401/)
      expect(answer.toLowerCase()).toContain('connection: keep-alive')
    } finally {
      socket.destroy()
    }
  })
})
