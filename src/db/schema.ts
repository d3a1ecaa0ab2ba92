// The tables the service's queries see, each declared in tables/ with the vocabularies its columns
// hold; the migrations (migrations/) make them. Modules import table types from tables/.

import type {
  AnnualPlanCancellationsTable,
  AnnualPlanRefundsTable,
  AnnualPlansTable,
} from './tables/annual-plan.js'
import type { BrandsTable, ModelsTable, PartnerModelsTable } from './tables/catalog.js'
import type {
  ClaimDocumentChunksTable,
  ClaimDocumentsTable,
  ClaimNumbersTable,
  ClaimsTable,
  PartnerClaimCountsTable,
} from './tables/claim.js'
import type { CustomersTable } from './tables/customer.js'
import type { DeviceProtectionsTable } from './tables/device-protection.js'
import type { EventsTable } from './tables/event.js'
import type { IdempotencyKeysTable } from './tables/idempotency.js'
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
import type { PlansTable } from './tables/plan.js'
import type { PremiumMonthsTable } from './tables/premium-month.js'
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
