import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'

/**
 * The connection that shares rate-limit counters between API processes. Requests never wait for
 * it: with no offline queue a command fails at once while it is down, and the limiter then lets
 * the request pass uncounted. ioredis is loaded only when Redis is configured (≈ 24 MB of memory
 * and 90 ms of start-up).
 *
 * The connect timeout only bounds one attempt, so it can be generous: at 500 ms it fired during
 * the start-up's own synchronous work (schema compilation) while Redis was up. ioredis reconnects
 * by itself; an outage is logged once when it starts and once when it ends, not per attempt (and
 * never as ioredis's "Unhandled error event" stack trace on stderr). Closed with the app.
 */
export async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const { log } = app
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, { connectTimeout: 5000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
  let down = false
  redis.on('error', (error) => {
    if (down) return
    down = true
    log.warn({ err: error }, 'Redis unreachable: rate limits are not counted until it is back')
  })
  redis.on('ready', () => {
    if (!down) return
    down = false
    log.info('Redis reachable again: rate limits are counted')
  })
  app.addHook('onClose', async () => {
    // QUIT waits for pending replies, but cannot be sent while disconnected.
    if (redis.status === 'ready') await redis.quit()
    else redis.disconnect()
  })
  return redis
}
