import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, release, totalmem } from 'node:os'
import type { Measurement, Scenario, ScenarioId } from './load.js'

// Console tables and the generated sections of docs/benchmarks.md.

export interface ScenarioResult {
  scenario: Scenario
  /** Short name in the console table (default: the scenario id). */
  label?: string
  m: Measurement
  /** Peak RSS of the API process during warm-up and measurement, MB. */
  peakRssMb: number | null
  /**
   * Cores busy with the bench and its servers, cores busy with anything else (the noise), and the
   * server's own CPU time per request answered (the API with its PostgreSQL backends; the baseline).
   */
  cpu: { oursCores: number; foreignCores: number; serverUsPerRequest: number | null }
  ratio: number | null
  checks: Check[]
}

export interface Check {
  what: string
  target: string
  ok: boolean
}

export function machine(): string {
  const cpu = cpus()
  const model = cpu[0]?.model.trim() ?? 'unknown CPU'
  return `${cpu.length} × ${model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, Linux ${release()}, Node ${process.version}`
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')

const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—')
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '—')

export function problems(m: Measurement): string {
  const parts: string[] = []
  const bad = Object.entries(m.statusCodes).filter(([code]) => !code.startsWith('2'))
  if (bad.length) parts.push(bad.map(([code, n]) => `${n}×${code}`).join(' '))
  if (m.errors) parts.push(`${m.errors} errors`)
  if (m.timeouts) parts.push(`${m.timeouts} timeouts`)
  return parts.join(', ')
}

export function consoleTable(results: ScenarioResult[]): string {
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'CPU µs/req', 'RSS MB', 'noise', 'checks']
  const rows = results.map((r) => [
    r.label ?? r.scenario.id,
    int(r.m.rps),
    f(r.m.p50, 2),
    f(r.m.p99, 2),
    r.ratio === null ? '' : f(r.ratio, 2),
    r.cpu.serverUsPerRequest === null ? '' : int(r.cpu.serverUsPerRequest),
    r.peakRssMb === null ? '' : f(r.peakRssMb, 0),
    `${f(r.cpu.foreignCores, 2)} cores`,
    [
      problems(r.m) && `INVALID (${problems(r.m)})`,
      ...r.checks.map((c) => `${c.ok ? 'ok' : 'FAIL'} ${c.what} ${c.target}`),
    ]
      .filter(Boolean)
      .join('; '),
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === 8 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ')
  return [line(head), ...rows.map(line)].join('\n')
}

export function resultsMarkdown(results: ScenarioResult[]): string {
  return [
    '| Scenario | req/s (2xx) | p50 ms | p99 ms | Ratio to baseline | Server CPU µs a request | Peak RSS MB | Other load (cores) | Targets |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...results.map((r) => {
      const issues = problems(r.m)
      const checks = r.checks.map((c) => `${c.ok ? '✅' : '❌'} ${c.what} ${c.target}`).join('<br>')
      const name = r.scenario.id === 'baseline' ? r.scenario.title : `(${r.scenario.id}) ${r.scenario.title}`
      const perFlow =
        r.scenario.requestsPerFlow > 1 ? ` (${int(r.m.rps / r.scenario.requestsPerFlow)} flows/s)` : ''
      return `| ${name} | ${int(r.m.rps)}${perFlow} | ${f(r.m.p50, 2)} | ${f(r.m.p99, 2)} | ${r.ratio === null ? '' : f(r.ratio, 2)} | ${r.cpu.serverUsPerRequest === null ? '' : int(r.cpu.serverUsPerRequest)} | ${r.peakRssMb === null ? '' : f(r.peakRssMb, 0)} | ${f(r.cpu.foreignCores, 2)} | ${[issues && `⚠️ invalid: ${issues}`, checks].filter(Boolean).join('<br>')} |`
    }),
  ].join('\n')
}

/** Replaces (or appends) the section between `<!-- bench:KEY:begin -->` and `<!-- bench:KEY:end -->`. */
export function writeSection(file: string, key: string, body: string): void {
  const begin = `<!-- bench:${key}:begin -->`
  const end = `<!-- bench:${key}:end -->`
  const block = `${begin}\n${body.trim()}\n${end}`
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n'
  const from = text.indexOf(begin)
  const to = text.indexOf(end)
  const next =
    from >= 0 && to > from
      ? `${text.slice(0, from)}${block}${text.slice(to + end.length)}`
      : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, next)
}

export type { ScenarioId }
