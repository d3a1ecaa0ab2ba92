import { Fragment, type ReactNode } from 'react'
import { brl, int } from '../../format'
import { TableWrap } from '../../ui'

/** A figure column: money (cents, its value kept in `data-cents`), a count, or text already formatted. */
type FigureColumn<Row> = { header: string } & (
  | { cents: (row: Row) => number }
  | { count: (row: Row) => number }
  | { text: (row: Row) => string }
)

function figureCell<Row>(column: FigureColumn<Row>, row: Row) {
  if ('cents' in column) {
    const cents = column.cents(row)
    return (
      <td className="num" data-cents={cents} data-label={column.header}>
        {brl(cents)}
      </td>
    )
  }
  return (
    <td className="num" data-label={column.header}>
      {'count' in column ? int(column.count(row)) : column.text(row)}
    </td>
  )
}

export interface FigureTable<Row> {
  testId: string
  label: string
  caption: string
  rows: Row[]
  /** Shown as the only row when there is none. */
  empty?: string
  rowKey: (row: Row) => string
  /** The row's `data-*` attributes, which the browser tests read. */
  rowData: (row: Row) => Record<`data-${string}`, string | number>
  rowHeader: { header: string; cell: (row: Row) => string }
  columns: FigureColumn<Row>[]
  /** On a narrow screen, each row a card (its figures under their columns' names). */
  cards?: boolean
}

/**
 * A chart with its figures in a table beside it (docs/decisions.md, Operator console UI): the
 * table is what screen readers, tests and copy-paste use, the chart is for the eye.
 */
export function ChartPanel<Row>({
  id,
  title,
  note,
  stacked = false,
  chartHeight,
  chart,
  table,
}: {
  id: string
  title: string
  note?: string
  stacked?: boolean
  chartHeight?: number
  chart: ReactNode
  table: FigureTable<Row>
}) {
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {note ? <p className="small muted">{note}</p> : null}
      <div className={stacked ? 'chart-and-table stacked' : 'chart-and-table'}>
        <div className="chart" style={chartHeight ? { height: `${chartHeight}px` } : undefined}>
          {chart}
        </div>
        <TableWrap label={table.label}>
          <table data-testid={table.testId} className={table.cards ? 'cards' : undefined}>
            <caption className="sr-only">{table.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{table.rowHeader.header}</th>
                {table.columns.map((column) => (
                  <th key={column.header} scope="col" className="num">
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.length === 0 && table.empty ? (
                <tr>
                  <td colSpan={table.columns.length + 1} className="muted">
                    {table.empty}
                  </td>
                </tr>
              ) : null}
              {table.rows.map((row) => (
                <tr key={table.rowKey(row)} {...table.rowData(row)}>
                  <th scope="row">{table.rowHeader.cell(row)}</th>
                  {table.columns.map((column) => (
                    <Fragment key={column.header}>{figureCell(column, row)}</Fragment>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </div>
    </section>
  )
}
