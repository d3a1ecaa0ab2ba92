import { Kysely, PostgresAdapter, type Transaction } from 'kysely'
import type { Pool } from 'pg'
import type { Config } from '../config.js'
import type {
  AnnualPlanCancellationsTable,
  AnnualPlanRefundsTable,
  AnnualPlansTable,
} from '../modules/annual-plans/annual-plan.table.js'
import type { SigningKeysTable } from '../modules/auth/signing-key.table.js'
import type { BrandsTable, ModelsTable, PartnerModelsTable } from '../modules/catalog/catalog.table.js'
import type {
  ClaimDocumentChunksTable,
  ClaimDocumentsTable,
  ClaimNumbersTable,
  ClaimsTable,
  PartnerClaimCountsTable,
} from '../modules/claims/claim.table.js'
import type { PremiumMonthsTable } from '../modules/console/premium-month.table.js'
import type { CustomersTable } from '../modules/customers/customer.table.js'
import type { DeviceProtectionsTable } from '../modules/devices/device-protection.table.js'
import type { EventsTable } from '../modules/events/event.table.js'
import type {
  AuditLogTable,
  OperatorSessionsTable,
  OperatorsTable,
} from '../modules/operators/operator.table.js'
import type { CredentialsTable, PartnersTable, PartnerUsersTable } from '../modules/partners/partner.table.js'
import type {
  CardAttemptsTable,
  CardChecksTable,
  CardTriesTable,
  GatewayCustomersTable,
  PaymentsTable,
  SettingsTable,
} from '../modules/payments/payment.table.js'
import type { PlansTable } from '../modules/plans/plan.table.js'
import type { ShopkeepersTable } from '../modules/shopkeepers/shopkeeper.table.js'
import type {
  InstallmentsTable,
  PartnerSubscriptionCountsTable,
  SubscriptionsTable,
} from '../modules/subscriptions/subscription.table.js'
import type {
  WebhookDeliveriesTable,
  WebhookDispatchTable,
  WebhookEndpointsTable,
} from '../modules/webhooks/webhook.table.js'
import type { IdempotencyKeysTable } from '../plugins/idempotency.table.js'
import { createPool, postgresDialect } from './postgres.js'
import { readsNow } from './prepared.js'
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
  partner_subscription_counts: PartnerSubscriptionCountsTable
  payments: PaymentsTable
  gateway_customers: GatewayCustomersTable
  card_attempts: CardAttemptsTable
  card_checks: CardChecksTable
  card_tries: CardTriesTable
  settings: SettingsTable
  annual_plans: AnnualPlansTable
  annual_plan_cancellations: AnnualPlanCancellationsTable
  annual_plan_refunds: AnnualPlanRefundsTable
  device_protections: DeviceProtectionsTable
  idempotency_keys: IdempotencyKeysTable
  events: EventsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_dispatch: WebhookDispatchTable
  claims: ClaimsTable
  claim_numbers: ClaimNumbersTable
  claim_documents: ClaimDocumentsTable
  claim_document_chunks: ClaimDocumentChunksTable
  partner_claim_counts: PartnerClaimCountsTable
  premium_months: PremiumMonthsTable
  operators: OperatorsTable
  operator_sessions: OperatorSessionsTable
  audit_log: AuditLogTable
}

export type Db = Kysely<Database>
export type Trx = Transaction<Database>

const pools = new WeakMap<Db, Pool>()

export function createDb(config: Config['database']): Db {
  if (config.kind === 'sqlite') {
    const { dialect, readNow } = sqliteDialect(config.file)
    const db = new Kysely<Database>({ dialect })
    readsNow(db, readNow)
    return db
  }
  const pool = createPool(config)
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) })
  pools.set(db, pool)
  return db
}

/** Connections of a PostgreSQL database's pool (for metrics); null on SQLite. */
export function poolUsage(db: Db): { total: number; idle: number; waiting: number } | null {
  const pool = pools.get(db)
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null
}

// biome-ignore lint/suspicious/noExplicitAny: works for typed and untyped instances
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
