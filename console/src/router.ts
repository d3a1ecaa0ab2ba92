import { useEffect, useState } from 'react'

/** Hash routes ("#/sinistros/12?status=under_review"): the server serves one index.html at "/". */
export interface Route {
  path: string[]
  query: URLSearchParams
}

function current(): Route {
  const hash = window.location.hash.replace(/^#/, '') || '/'
  const [pathname = '/', search = ''] = hash.split('?')
  return {
    path: pathname.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(search),
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current)
  useEffect(() => {
    const update = () => setRoute(current())
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return route
}

export function href(path: string, query?: Record<string, string | undefined>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) if (v) q.set(k, v)
  const s = q.toString()
  return `#${path}${s ? `?${s}` : ''}`
}

export function navigate(path: string, query?: Record<string, string | undefined>) {
  window.location.hash = href(path, query)
}
