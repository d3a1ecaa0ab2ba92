import { type Static, type TSchema, Type } from 'typebox'

// Lists answer with Laravel's LengthAwarePaginator resource envelope, field for field, so clients
// written against the previous PHP service keep working unchanged.

/** Laravel's UrlWindow default: pages shown on each side of the current one. */
const ON_EACH_SIDE = 3
const SEPARATOR = '...'

export interface PageParams {
  page: number
  perPage: number
}

export interface PageLink {
  url: string | null
  label: string
  active: boolean
}

export interface Page<T> {
  data: T[]
  links: { first: string; last: string; prev: string | null; next: string | null }
  meta: {
    current_page: number
    from: number | null
    last_page: number
    links: PageLink[]
    path: string
    per_page: number
    to: number | null
    total: number
  }
}

export const PageQuery = Type.Object({
  page: Type.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    default: 1,
    description: 'Page number, starting at 1.',
  }),
  per_page: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 15,
    description: 'Items per page (at most 100).',
  }),
})
export type PageQuery = Static<typeof PageQuery>

const NullableUrl = (description: string) => Type.Union([Type.String(), Type.Null()], { description })
const NullableInteger = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description })

const PageLinkSchema = Type.Object(
  {
    url: NullableUrl('Address of the page; null for a separator or a missing previous/next page.'),
    label: Type.String({ description: 'Page number, "...", "&laquo; Previous" or "Next &raquo;".' }),
    active: Type.Boolean({ description: 'Whether this is the current page.' }),
  },
  { description: 'One entry of the page navigation, in display order.' },
)

/** Response schema of a paginated list of `item`. */
export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item, { description: 'Items of this page.' }),
    links: Type.Object(
      {
        first: Type.String({ description: 'Address of the first page.' }),
        last: Type.String({ description: 'Address of the last page.' }),
        prev: NullableUrl('Address of the previous page; null on the first page.'),
        next: NullableUrl('Address of the next page; null on the last page.'),
      },
      { description: 'Absolute navigation addresses.' },
    ),
    meta: Type.Object(
      {
        current_page: Type.Integer({ description: 'Requested page number.' }),
        from: NullableInteger('1-based position of the first item of this page; null when it is empty.'),
        last_page: Type.Integer({ description: 'Number of the last page (at least 1).' }),
        links: Type.Array(PageLinkSchema, { description: 'Navigation entries, Laravel style.' }),
        path: Type.String({ description: 'Address of the list without query string.' }),
        per_page: Type.Integer({ description: 'Items per page.' }),
        to: NullableInteger('1-based position of the last item of this page; null when it is empty.'),
        total: Type.Integer({ description: 'Number of items across all pages.' }),
      },
      { description: 'Pagination details.' },
    ),
  })
}

/** Rows to skip for this page. */
export function pageOffset(p: PageParams): number {
  return (p.page - 1) * p.perPage
}

/**
 * Wraps one page of `data` (already sliced at `pageOffset`) in the envelope. `path` is the absolute
 * list address without query; `query` is the parsed request query, whose other parameters every
 * page address keeps.
 */
export function buildPage<T>(
  data: T[],
  total: number,
  p: PageParams,
  path: string,
  query: Record<string, unknown>,
): Page<T> {
  if (!Number.isInteger(p.perPage) || p.perPage < 1) throw new RangeError(`Invalid perPage: ${p.perPage}`)
  if (!Number.isInteger(p.page) || p.page < 1) throw new RangeError(`Invalid page: ${p.page}`)
  const lastPage = Math.max(1, Math.ceil(total / p.perPage))
  const url = pageUrlBuilder(path, query)
  // Like Laravel, prev/next follow the requested page even past the end, so a client can walk back.
  const prev = p.page > 1 ? url(p.page - 1) : null
  const next = p.page < lastPage ? url(p.page + 1) : null
  const from = data.length > 0 ? pageOffset(p) + 1 : null
  return {
    data,
    links: { first: url(1), last: url(lastPage), prev, next },
    meta: {
      current_page: p.page,
      from,
      last_page: lastPage,
      links: navigation(p.page, lastPage, url, prev, next),
      path,
      per_page: p.perPage,
      to: from === null ? null : from + data.length - 1,
      total,
    },
  }
}

function navigation(
  current: number,
  lastPage: number,
  url: (page: number) => string,
  prev: string | null,
  next: string | null,
): PageLink[] {
  const pages = urlWindow(current, lastPage).map(
    (entry): PageLink =>
      entry === SEPARATOR
        ? { url: null, label: SEPARATOR, active: false }
        : { url: url(entry), label: String(entry), active: entry === current },
  )
  return [
    { url: prev, label: '&laquo; Previous', active: false },
    ...pages,
    { url: next, label: 'Next &raquo;', active: false },
  ]
}

// Illuminate\Pagination\UrlWindow::get() plus LengthAwarePaginator::elements(), which puts a
// separator before the slider and before the last group whenever those exist.
function urlWindow(current: number, lastPage: number): Array<number | typeof SEPARATOR> {
  if (lastPage < ON_EACH_SIDE * 2 + 8) return range(1, lastPage)
  const window = ON_EACH_SIDE + 4
  const finish = range(lastPage - 1, lastPage)
  if (current <= window) return [...range(1, window + ON_EACH_SIDE), SEPARATOR, ...finish]
  const start = range(1, 2)
  if (current > lastPage - window) {
    return [...start, SEPARATOR, ...range(lastPage - (window + (ON_EACH_SIDE - 1)), lastPage)]
  }
  const slider = range(current - ON_EACH_SIDE, current + ON_EACH_SIDE)
  return [...start, SEPARATOR, ...slider, SEPARATOR, ...finish]
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

// The other query parameters are serialized once; each page only appends its own `page`.
function pageUrlBuilder(path: string, query: Record<string, unknown>): (page: number) => string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (key !== 'page') appendParam(params, key, value)
  }
  const kept = params.toString()
  const prefix = `${path}${path.includes('?') ? '&' : '?'}${kept ? `${kept}&` : ''}page=`
  return (page) => `${prefix}${page}`
}

function appendParam(params: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined || value === null) return
  if (Array.isArray(value)) {
    for (const item of value) appendParam(params, key, item)
  } else if (typeof value === 'object') {
    // A nested object (a query parser that expands `filter[name]`) goes back to bracket keys.
    for (const [sub, item] of Object.entries(value)) appendParam(params, `${key}[${sub}]`, item)
  } else {
    params.append(key, String(value))
  }
}
