import type { Static } from 'typebox'
import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { buildPage, type Page, PageOf, PageQuery, pageOffset } from './pagination.js'

const PATH = 'http://localhost:3000/brands'
const url = (page: number) => `${PATH}?page=${page}`

function items(count: number, first = 1): number[] {
  return Array.from({ length: count }, (_, i) => first + i)
}

function labels(page: Page<unknown>): string[] {
  return page.meta.links.map((l) => l.label)
}

function pageFor(current: number, lastPage: number): Page<number> {
  return buildPage(items(1), lastPage * 10, { page: current, perPage: 10 }, PATH, {})
}

describe('pageOffset', () => {
  it('skips the rows of the previous pages', () => {
    expect(pageOffset({ page: 1, perPage: 15 })).toBe(0)
    expect(pageOffset({ page: 3, perPage: 15 })).toBe(30)
  })
})

describe('buildPage', () => {
  it('builds the full Laravel envelope', () => {
    const page = buildPage(['a', 'b'], 17, { page: 2, perPage: 15 }, PATH, {})
    expect(page).toEqual({
      data: ['a', 'b'],
      links: { first: url(1), last: url(2), prev: url(1), next: null },
      meta: {
        current_page: 2,
        from: 16,
        last_page: 2,
        links: [
          { url: url(1), label: '&laquo; Previous', active: false },
          { url: url(1), label: '1', active: false },
          { url: url(2), label: '2', active: true },
          { url: null, label: 'Next &raquo;', active: false },
        ],
        path: PATH,
        per_page: 15,
        to: 17,
        total: 17,
      },
    })
    expect(Object.keys(page.meta)).toEqual([
      'current_page',
      'from',
      'last_page',
      'links',
      'path',
      'per_page',
      'to',
      'total',
    ])
  })

  it('has one empty page when there is nothing', () => {
    const page = buildPage([], 0, { page: 1, perPage: 15 }, PATH, {})
    expect(page.meta).toMatchObject({ current_page: 1, last_page: 1, from: null, to: null, total: 0 })
    expect(page.links).toEqual({ first: url(1), last: url(1), prev: null, next: null })
    expect(page.meta.links).toEqual([
      { url: null, label: '&laquo; Previous', active: false },
      { url: url(1), label: '1', active: true },
      { url: null, label: 'Next &raquo;', active: false },
    ])
  })

  it('fills the last page exactly on a multiple of per_page', () => {
    const page = buildPage(items(15, 31), 45, { page: 3, perPage: 15 }, PATH, {})
    expect(page.meta).toMatchObject({ last_page: 3, from: 31, to: 45 })
    expect(page.links).toMatchObject({ last: url(3), prev: url(2), next: null })
  })

  it('opens a new page for one item past a multiple', () => {
    const first = buildPage(items(15), 46, { page: 1, perPage: 15 }, PATH, {})
    expect(first.meta).toMatchObject({ last_page: 4, from: 1, to: 15 })
    expect(first.links).toMatchObject({ first: url(1), last: url(4), prev: null, next: url(2) })
    const last = buildPage(items(1, 46), 46, { page: 4, perPage: 15 }, PATH, {})
    expect(last.meta).toMatchObject({ last_page: 4, from: 46, to: 46 })
    expect(last.links).toMatchObject({ prev: url(3), next: null })
  })

  it('answers a page past the end with no items but valid links', () => {
    const page = buildPage([], 20, { page: 5, perPage: 10 }, PATH, {})
    expect(page.data).toEqual([])
    expect(page.meta).toMatchObject({ current_page: 5, last_page: 2, from: null, to: null, total: 20 })
    expect(page.links).toEqual({ first: url(1), last: url(2), prev: url(4), next: null })
    expect(page.meta.links.map((l) => [l.label, l.active])).toEqual([
      ['&laquo; Previous', false],
      ['1', false],
      ['2', false],
      ['Next &raquo;', false],
    ])
  })

  it('keeps the other query parameters in order and puts page last', () => {
    const query = {
      'filter[name]': 'Apple TV',
      page: 3,
      sort: '-name',
      skipped: undefined,
      include: ['brand', 'model'],
      per_page: 10,
    }
    const page = buildPage(items(10), 100, { page: 3, perPage: 10 }, PATH, query)
    const kept = 'filter%5Bname%5D=Apple+TV&sort=-name&include=brand&include=model&per_page=10'
    expect(page.links).toEqual({
      first: `${PATH}?${kept}&page=1`,
      last: `${PATH}?${kept}&page=10`,
      prev: `${PATH}?${kept}&page=2`,
      next: `${PATH}?${kept}&page=4`,
    })
    expect(page.meta.path).toBe(PATH)
    expect(page.meta.links[3]).toEqual({ url: `${PATH}?${kept}&page=3`, label: '3', active: true })
  })

  it('writes nested query objects back as bracket keys', () => {
    const page = buildPage([], 0, { page: 1, perPage: 10 }, PATH, { filter: { name: 'x', brand: null } })
    expect(page.links.first).toBe(`${PATH}?filter%5Bname%5D=x&page=1`)
  })

  it('rejects impossible page parameters', () => {
    expect(() => buildPage([], 0, { page: 0, perPage: 10 }, PATH, {})).toThrow(RangeError)
    expect(() => buildPage([], 0, { page: 1, perPage: 0 }, PATH, {})).toThrow(RangeError)
  })
})

describe('meta.links window (Laravel UrlWindow, onEachSide 3)', () => {
  // The labels between Previous and Next, comma-joined, so each window reads like the rendered links.
  function window(current: number, lastPage: number): string {
    const all = labels(pageFor(current, lastPage))
    expect(all[0]).toBe('&laquo; Previous')
    expect(all.at(-1)).toBe('Next &raquo;')
    return all.slice(1, -1).join(',')
  }

  it('lists every page below 14 pages', () => {
    expect(window(1, 5)).toBe('1,2,3,4,5')
    expect(window(3, 5)).toBe('1,2,3,4,5')
    expect(window(1, 1)).toBe('1')
    expect(window(7, 13)).toBe('1,2,3,4,5,6,7,8,9,10,11,12,13')
  })

  it('shows the start and the last two pages near the beginning', () => {
    expect(window(1, 20)).toBe('1,2,3,4,5,6,7,8,9,10,...,19,20')
    expect(window(7, 20)).toBe('1,2,3,4,5,6,7,8,9,10,...,19,20')
    expect(window(1, 14)).toBe('1,2,3,4,5,6,7,8,9,10,...,13,14')
  })

  it('slides around the current page in the middle', () => {
    expect(labels(pageFor(10, 20))).toEqual([
      '&laquo; Previous',
      '1',
      '2',
      '...',
      '7',
      '8',
      '9',
      '10',
      '11',
      '12',
      '13',
      '...',
      '19',
      '20',
      'Next &raquo;',
    ])
    expect(window(8, 20)).toBe('1,2,...,5,6,7,8,9,10,11,...,19,20')
    expect(window(13, 20)).toBe('1,2,...,10,11,12,13,14,15,16,...,19,20')
  })

  it('shows the first two pages and the end near the end', () => {
    expect(window(20, 20)).toBe('1,2,...,11,12,13,14,15,16,17,18,19,20')
    expect(window(14, 20)).toBe('1,2,...,11,12,13,14,15,16,17,18,19,20')
    // Past the end Laravel still windows from the requested page.
    expect(window(25, 20)).toBe('1,2,...,11,12,13,14,15,16,17,18,19,20')
  })

  it('marks only the current page active and gives separators no url', () => {
    const links = pageFor(10, 20).meta.links
    expect(links.filter((l) => l.active)).toEqual([{ url: url(10), label: '10', active: true }])
    expect(links.filter((l) => l.label === '...')).toEqual([
      { url: null, label: '...', active: false },
      { url: null, label: '...', active: false },
    ])
    expect(links[0]).toEqual({ url: url(9), label: '&laquo; Previous', active: false })
    expect(links.at(-1)).toEqual({ url: url(11), label: 'Next &raquo;', active: false })
  })
})

describe('schemas', () => {
  it('PageQuery fills the Laravel defaults and bounds per_page', () => {
    expect(Value.Default(PageQuery, {})).toEqual({ page: 1, per_page: 15 })
    expect(Value.Check(PageQuery, { page: 1, per_page: 100 })).toBe(true)
    expect(Value.Check(PageQuery, { page: 1, per_page: 101 })).toBe(false)
    expect(Value.Check(PageQuery, { page: 0, per_page: 15 })).toBe(false)
    expect(Value.Check(PageQuery, { page: 1.5, per_page: 15 })).toBe(false)
  })

  it('PageOf describes what buildPage returns', () => {
    const Brand = Type.Object({ id: Type.Integer(), name: Type.String() })
    const schema = PageOf(Brand)
    const brands = [{ id: 1, name: 'Apple' }]
    expect(Value.Check(schema, buildPage(brands, 1, { page: 1, perPage: 15 }, PATH, {}))).toBe(true)
    expect(Value.Check(schema, buildPage([], 40, { page: 9, perPage: 15 }, PATH, {}))).toBe(true)
    expect(Value.Check(schema, buildPage(items(1), 300, { page: 10, perPage: 15 }, PATH, {}))).toBe(false)
    expectTypeOf<Static<typeof schema>>().toEqualTypeOf<Page<Static<typeof Brand>>>()
  })
})
