import { readFileSync } from 'node:fs'

// Reads a V8 .cpuprofile and answers where the time went: by package (self and inclusive) and by
// function. Time is sample time; idle time (the process waiting) is left out of the percentages.

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}

interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface Share {
  name: string
  ms: number
  pct: number
}

export interface ProfileSummary {
  busyMs: number
  idleMs: number
  selfByPackage: Share[]
  inclusiveByPackage: Share[]
  selfByFunction: Share[]
  inclusiveByFunction: Share[]
}

const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)'])

function packageOf(url: string): string | null {
  if (!url) return null
  const modules = url.lastIndexOf('/node_modules/')
  if (modules >= 0) {
    const [first, second] = url.slice(modules + '/node_modules/'.length).split('/')
    return first?.startsWith('@') ? `${first}/${second}` : (first ?? url)
  }
  if (url.startsWith('node:')) return 'node core'
  const dist = url.indexOf('/dist/')
  if (dist >= 0)
    return `amparo ${url
      .slice(dist + 1)
      .split('/')
      .slice(0, 3)
      .join('/')}`
  return url.replace(/^file:\/\//, '')
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/')
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length)
  const dist = url.indexOf('/dist/')
  if (dist >= 0) return url.slice(dist + 1)
  return url.replace(/^file:\/\//, '')
}

export function summarize(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

  // A frame's package; native frames (no url) belong to the nearest JS caller, marked "(native)".
  const packageMemo = new Map<number, string>()
  const packageFor = (id: number): string => {
    const cached = packageMemo.get(id)
    if (cached) return cached
    const node = byId.get(id) as ProfileNode
    const { functionName, url } = node.callFrame
    let name: string
    if (SPECIAL.has(functionName)) name = functionName
    else if (url) name = packageOf(url) as string
    else {
      const up = parent.get(id)
      const callerPackage = up === undefined ? '(root)' : packageFor(up)
      name = SPECIAL.has(callerPackage) ? 'native' : `${callerPackage.replace(/ \(native\)$/, '')} (native)`
    }
    packageMemo.set(id, name)
    return name
  }
  const functionFor = (id: number): string => {
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame
    if (SPECIAL.has(functionName)) return functionName
    return `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)'}`
  }

  const selfPkg = new Map<string, number>()
  const inclPkg = new Map<string, number>()
  const selfFn = new Map<string, number>()
  const inclFn = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms)
  let busy = 0
  let idle = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000
    const fn = (byId.get(id) as ProfileNode).callFrame.functionName
    if (fn === '(idle)') {
      idle += ms
      continue
    }
    busy += ms
    add(selfPkg, packageFor(id), ms)
    add(selfFn, functionFor(id), ms)
    const seenPkg = new Set<string>()
    const seenFn = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = (byId.get(at) as ProfileNode).callFrame.functionName
      if (name === '(root)') break
      seenPkg.add(packageFor(at).replace(/ \(native\)$/, ''))
      seenFn.add(functionFor(at))
    }
    for (const p of seenPkg) add(inclPkg, p, ms)
    for (const f of seenFn) add(inclFn, f, ms)
  }
  const shares = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms, pct: (100 * ms) / (busy || 1) }))
  return {
    busyMs: busy,
    idleMs: idle,
    selfByPackage: shares(selfPkg, top),
    inclusiveByPackage: shares(inclPkg, top),
    selfByFunction: shares(selfFn, top),
    inclusiveByFunction: shares(
      new Map(
        [...inclFn].filter(
          ([name]) => !name.startsWith('(') && !/^(processTicksAndRejections|listOnTimeout|emit) /.test(name),
        ),
      ),
      top,
    ),
  }
}

export function profileMarkdown(title: string, s: ProfileSummary): string {
  const table = (heading: string, rows: Share[]) =>
    [
      `| ${heading} | ms | % of busy |`,
      '| --- | ---: | ---: |',
      ...rows.map(
        (r) => `| \`${r.name.replace(/\|/g, '\\|')}\` | ${r.ms.toFixed(0)} | ${r.pct.toFixed(1)} |`,
      ),
    ].join('\n')
  const busyPct = (100 * s.busyMs) / (s.busyMs + s.idleMs || 1)
  return [
    `#### ${title}`,
    '',
    `Busy ${(s.busyMs / 1000).toFixed(1)} s of ${((s.busyMs + s.idleMs) / 1000).toFixed(1)} s sampled (${busyPct.toFixed(0)} % — the rest the process waited: for PostgreSQL, or for requests).`,
    '',
    table('Package, self time', s.selfByPackage.slice(0, 10)),
    '',
    table('Package, inclusive (on the stack)', s.inclusiveByPackage.slice(0, 12)),
    '',
    table('Function, self time', s.selfByFunction.slice(0, 12)),
    '',
    table('Function, inclusive', s.inclusiveByFunction.slice(0, 15)),
    '',
  ].join('\n')
}
