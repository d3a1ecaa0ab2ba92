// The tables the service's queries see, each declared in tables/ with the vocabularies its columns
// hold; the migrations (migrations/) make them. Modules import table types from tables/.

import type { Kysely, KyselyPlugin, Transaction } from 'kysely'
import type {
  AnnualPlanCancellationsTable,
  AnnualPlanRefundsTable,
  AnnualPlansTable,
} from './tables/annual-plan.js'
import type { BrandsTable, ModelsTable, PartnerModelsTable } from './tables/catalog.js'
import type {
  ClaimDocumentChunksTable,
  ClaimDocumentsTable,
  ClaimNotesTable,
  ClaimNumbersTable,
  ClaimsTable,
  PartnerClaimCountsTable,
} from './tables/claim.js'
import type { CustomerNameWordsTable, CustomersTable } from './tables/customer.js'
import type { DeviceProtectionsTable } from './tables/device-protection.js'
import type { EventsTable } from './tables/event.js'
import type { IdempotencyKeysTable } from './tables/idempotency.js'
import type {
  MessageAttemptsTable,
  MessageDispatchTable,
  MessagesTable,
  SignInLinksTable,
} from './tables/message.js'
import type { AuditLogTable, OperatorSessionsTable, OperatorsTable } from './tables/operator.js'
import type { CredentialsTable, PartnersTable, PartnerUsersTable } from './tables/partner.js'
import type {
  CardAttemptsTable,
  CardChecksTable,
  CardTriesTable,
  GatewayCustomersTable,
  PaymentsTable,
  SettingsTable,
} from './tables/payment.js'
import type { PaymentCodesTable, PaymentDisputesTable, StripeEventsTable } from './tables/payment-code.js'
import type { PlansTable } from './tables/plan.js'
import type { PortalCodesTable, PortalSessionsTable } from './tables/portal.js'
import type { PremiumHoursTable } from './tables/premium-hour.js'
import type { ShopkeepersTable } from './tables/shopkeeper.js'
import type { SigningKeysTable } from './tables/signing-key.js'
import type {
  InstallmentsTable,
  PartnerSubscriptionCountsTable,
  SubscriptionsTable,
} from './tables/subscription.js'
import type { WebhookDeliveriesTable, WebhookDispatchTable, WebhookEndpointsTable } from './tables/webhook.js'

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
  customer_name_words: CustomerNameWordsTable
  subscriptions: SubscriptionsTable
  installments: InstallmentsTable
  partner_subscription_counts: PartnerSubscriptionCountsTable
  payments: PaymentsTable
  gateway_customers: GatewayCustomersTable
  card_attempts: CardAttemptsTable
  card_checks: CardChecksTable
  card_tries: CardTriesTable
  settings: SettingsTable
  payment_codes: PaymentCodesTable
  stripe_events: StripeEventsTable
  payment_disputes: PaymentDisputesTable
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
  claim_notes: ClaimNotesTable
  claim_document_chunks: ClaimDocumentChunksTable
  partner_claim_counts: PartnerClaimCountsTable
  premium_hours: PremiumHoursTable
  operators: OperatorsTable
  operator_sessions: OperatorSessionsTable
  audit_log: AuditLogTable
  messages: MessagesTable
  message_attempts: MessageAttemptsTable
  message_dispatch: MessageDispatchTable
  sign_in_links: SignInLinksTable
  portal_codes: PortalCodesTable
  portal_sessions: PortalSessionsTable
}

// Three handles on the database (src/db/README.md, Transactions), told apart by the compiler:
// Kysely's `Transaction` extends `Kysely`, so without the brands a function that takes the database
// would take a transaction, and a transaction opened with Kysely alone would pass for the one helper's.
declare const database: unique symbol
declare const writeTransaction: unique symbol

/**
 * The database, as `createDb` (database.ts) makes it: reads outside a transaction, and opens write
 * transactions. It has no write builder, so a write outside `retryingTransaction` does not compile.
 */
export type Db = Omit<Kysely<Database>, WriteBuilders | Rewrappers> & {
  /** The same database seen through `plugin`: still without write builders. */
  withPlugin(plugin: KyselyPlugin): Db
  withoutPlugins(): Db
  readonly [database]: true
}
/** What returns another Kysely instance over the same database: a way around the missing builders. */
type Rewrappers = 'withPlugin' | 'withoutPlugins' | 'withSchema' | 'withTables'
/**
 * A write transaction: made only by `retryingTransaction` (transaction.ts). A function that writes
 * takes a `Trx`, so that given a `Db`, or a transaction opened any other way, it does not compile.
 */
export type Trx = Transaction<Database> & { readonly [writeTransaction]: true }
/**
 * What a read takes: a `Db` or a `Trx` (in a transaction the read sees its writes). No write
 * builders and no transaction: a write takes a `Trx`.
 */
export type Reader = Omit<Kysely<Database>, WriteMembers>
type WriteBuilders = 'insertInto' | 'replaceInto' | 'updateTable' | 'deleteFrom' | 'mergeInto'
type WriteMembers = WriteBuilders | Rewrappers | 'transaction' | 'startTransaction' | 'connection' | 'destroy'
