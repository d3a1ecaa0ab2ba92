import { Kysely, PostgresAdapter, type Transaction } from 'kysely'
import type { Config } from '../config.js'
import type {
  AnnualPlanCancellationsTable,
  AnnualPlansTable,
} from '../modules/annual-plans/annual-plan.table.js'
import type { SigningKeysTable } from '../modules/auth/signing-key.table.js'
import type { BrandsTable, ModelsTable, PartnerModelsTable } from '../modules/catalog/catalog.table.js'
import type { CustomersTable } from '../modules/customers/customer.table.js'
import type { CredentialsTable, PartnersTable, PartnerUsersTable } from '../modules/partners/partner.table.js'
import type { PaymentsTable } from '../modules/payments/payment.table.js'
import type { PlansTable } from '../modules/plans/plan.table.js'
import type { ShopkeepersTable } from '../modules/shopkeepers/shopkeeper.table.js'
import type { InstallmentsTable, SubscriptionsTable } from '../modules/subscriptions/subscription.table.js'
import type { IdempotencyKeysTable } from '../plugins/idempotency.table.js'
import { postgresDialect } from './postgres.js'
import { sqliteDialect } from './sqlite.js'

export interface Database {
  partners: PartnersTable
  credentials: CredentialsTable
  partner_users: PartnerUsersTable
  signing_keys: SigningKeysTable
  brands: BrandsTable
  models: ModelsTable
  partner_models: PartnerModelsTable
  plans: PlansTable
  shopkeepers: ShopkeepersTable
  customers: CustomersTable
  subscriptions: SubscriptionsTable
  installments: InstallmentsTable
  payments: PaymentsTable
  annual_plans: AnnualPlansTable
  annual_plan_cancellations: AnnualPlanCancellationsTable
  idempotency_keys: IdempotencyKeysTable
}

export type Db = Kysely<Database>
export type Trx = Transaction<Database>

export function createDb(config: Config['database']): Db {
  const dialect = config.kind === 'postgres' ? postgresDialect(config) : sqliteDialect(config.file)
  return new Kysely<Database>({ dialect })
}

// biome-ignore lint/suspicious/noExplicitAny: works for typed and untyped instances
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
