import {
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely'

/**
 * Kysely's PostgreSQL dialect, with its migrator confined to the connection's schema (its
 * `search_path`), so that several processes, or several schemas of one database (one per test
 * file), can migrate at once:
 * - its introspection lists that schema's tables only, from one catalog snapshot. Kysely's lists
 *   every schema's and looks each table up again by name, which fails (`relation "….plans" does
 *   not exist`) when another client drops a table or a schema meanwhile;
 * - its migration lock is that schema's own, where Kysely's is one lock for the whole database.
 */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  // biome-ignore lint/suspicious/noExplicitAny: the introspector works on an untyped view
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaIntrospector(db)
  }

  override createAdapter(): PostgresAdapter {
    return new SchemaLockAdapter()
  }
}

/** The two-key advisory lock (this constant, the schema's hash): one migration a schema at a time. */
const MIGRATION_LOCK_CLASS = 0x6d696772

class SchemaLockAdapter extends PostgresAdapter {
  // biome-ignore lint/suspicious/noExplicitAny: called by the migrator on an untyped view
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_CLASS)}, hashtext(current_schema()))`.execute(
      db,
    )
  }

  // biome-ignore lint/suspicious/noExplicitAny: called by the migrator on an untyped view
  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_CLASS)}, hashtext(current_schema()))`.execute(
      db,
    )
  }
}

interface ColumnRow {
  table: string
  is_view: boolean
  schema: string
  column: string
  type: string
  type_schema: string
  not_null: boolean
  has_default: boolean
  auto_incrementing: boolean
  comment: string | null
}

const KYSELY_TABLES = [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]

class SchemaIntrospector implements DatabaseIntrospector {
  // biome-ignore lint/suspicious/noExplicitAny: the introspector works on an untyped view
  constructor(private readonly db: Kysely<any>) {}

  getSchemas(): Promise<SchemaMetadata[]> {
    return new PostgresIntrospector(this.db).getSchemas()
  }

  /**
   * The tables and views of the current schema. Every lookup is by oid in the catalog (a column
   * is auto-incrementing when a sequence depends on it), never by name, so the one snapshot holds.
   */
  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", c.relkind = 'v' as is_view, ns.nspname as "schema",
        a.attname as "column", typ.typname as "type", tns.nspname as type_schema,
        a.attnotnull as not_null, a.atthasdef as has_default,
        exists (
          select from pg_catalog.pg_depend d
          join pg_catalog.pg_class s on s.oid = d.objid and s.relkind = 'S'
          where d.refobjid = c.oid and d.refobjsubid = a.attnum and d.deptype in ('a', 'i')
        ) as auto_incrementing,
        col_description(a.attrelid, a.attnum) as "comment"
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace tns on tns.oid = typ.typnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
        and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.db)
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>()
    for (const row of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLES.includes(row.table)) continue
      let table = tables.get(row.table)
      if (!table) {
        table = { name: row.table, isView: row.is_view, schema: row.schema, columns: [] }
        tables.set(row.table, table)
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing,
        hasDefaultValue: row.has_default,
        comment: row.comment ?? undefined,
      })
    }
    return [...tables.values()]
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) }
  }
}
