import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The few column types that differ between the dialects. Instants are `timestamptz` on
 * PostgreSQL and ISO-8601 UTC text on SQLite (which sorts and compares correctly as text);
 * booleans are 0/1 integers on SQLite.
 */
export function columnTypes(db: Kysely<unknown>) {
  const pg = isPostgres(db)
  return {
    timestamp: pg ? sql`timestamptz` : sql`text`,
    date: pg ? sql`date` : sql`text`,
    bool: pg ? sql`boolean` : sql`integer`,
    id<T extends string>(table: CreateTableBuilder<T, never>) {
      return table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) =>
        pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
      )
    },
  }
}

export const falseValue = (db: Kysely<unknown>) => (isPostgres(db) ? sql`false` : sql`0`)
export const trueValue = (db: Kysely<unknown>) => (isPostgres(db) ? sql`true` : sql`1`)
