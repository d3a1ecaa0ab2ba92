import type { SelectQueryBuilder } from 'kysely'

/** Which rows of a list a page holds. */
export interface PageWindow {
  offset: number
  limit: number
}

/**
 * A filtered list's page, newest first, and the filter's total, read at once. The page's ids are
 * chosen over the filtered table alone (its partner index) and only those rows are joined by
 * `viewsOf`, so skipped rows never pay for the joins; the count and the OFFSET still grow with the
 * partner's rows. `matching` is the table with the filter applied, nothing selected.
 */
export async function pageByIds<DB, TB extends keyof DB, Row>(
  matching: SelectQueryBuilder<DB, TB, object>,
  selectId: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, { id: number }>,
  window: PageWindow,
  viewsOf: (pageIds: SelectQueryBuilder<DB, TB, { id: number }>) => Promise<Row[]>,
): Promise<{ rows: Row[]; total: number }> {
  const pageIds = selectId(matching).orderBy('id', 'desc').offset(window.offset).limit(window.limit)
  const [rows, count] = await Promise.all([
    viewsOf(pageIds),
    matching
      .select((eb) => eb.fn.countAll().as('total'))
      .$castTo<{ total: number | string | bigint }>()
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}
