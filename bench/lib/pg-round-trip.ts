import pg from 'pg'
import { processCpuUs } from './proc.js'

/**
 * The CPU one PostgreSQL round trip costs the machine, client and backend together, µs: a named
 * statement that selects its one parameter, run back to back on one connection for `seconds`
 * after a second of warm-up. Every statement the API sends costs at least this; its real ones
 * (joins, inserts) cost more.
 */
export async function pgRoundTripUs(url: string, seconds: number): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid')
    const backend = (rows[0] as { pid: number }).pid
    const probe = { name: 'ceiling_round_trip', text: 'select $1::int as id', values: [1] }
    const loop = async (ms: number) => {
      const started = performance.now()
      let n = 0
      while (performance.now() - started < ms) {
        await client.query(probe)
        n++
      }
      return n
    }
    await loop(1000)
    const ownBefore = process.cpuUsage()
    const backendBefore = processCpuUs(backend)
    const n = await loop(seconds * 1000)
    const own = process.cpuUsage(ownBefore)
    const backendUs = processCpuUs(backend) - backendBefore
    return (own.user + own.system + backendUs) / n
  } finally {
    await client.end()
  }
}
