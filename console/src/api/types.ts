// The shapes the screens read, as the console's operator API answers them (CONSOLE.md).
export type Role = 'admin' | 'adjuster' | 'viewer'

export interface Operator {
  id: number
  email: string
  role: Role
  disabled_at?: string | null
  created_at?: string
  totp_enrolled?: boolean
  last_login_at?: string | null
}

export type LoginStage =
  | { stage: 'totp' }
  | { stage: 'enroll'; otpauth_url: string; qr_svg: string }
  | { stage: 'done'; operator: Operator }

export interface Page<T> {
  data: T[]
  current_page: number
  per_page: number
  total: number
  last_page: number
}

export interface Dashboard {
  period: { from: string; to: string }
  premiums: { month: string; written_cents: number; collected_cents: number }[]
  active_protections: { subscriptions: number; annual_plans: number }
  claims: { month: string; opened: number; approved: number; denied: number; settled: number }[]
  loss_ratio: {
    partner_id: number
    partner_name: string
    plan_id: number
    plan_name: string
    premiums_collected_cents: number
    claims_paid_cents: number
    ratio: number | null
  }[]
  totals: { written_cents: number; collected_cents: number; claims_paid_cents: number; ratio: number | null }
}

export interface PartnerRef {
  id: number
  name: string
}

export interface ClaimSummary {
  id: number
  number: string
  status: string
  status_label?: string
  type: string
  partner: PartnerRef
  customer_name: string
  device?: string | DeviceInfo | null
  opened_at: string
  fraud_signals: string[]
  approved_amount_cents?: number | null
}

export interface DeviceInfo {
  brand?: string
  model?: { id: number; name: string } | string
  serial_number?: string | null
}

export interface ClaimDocument {
  id: number | string
  kind: string
  content_type: string
  size: number
  url: string
  filename?: string
}

export interface TimelineEvent {
  id?: string | number
  type: string
  created_at?: string
  occurred_at?: string
  description?: string
}

export interface ClaimDetail extends ClaimSummary {
  description?: string | null
  occurred_at?: string
  contract?: {
    kind: string
    id: string | number
    number?: string | null
    status: string
    plan?: string | { id?: number; name?: string } | null
    starts_at?: string | null
    ends_on?: string | null
    ends_at?: string | null
    serial_numbers?: string[]
  }
  customer?: {
    id?: number
    name: string
    document?: string
    document_kind?: string
    email?: string
    phone?: string
    city?: string | null
    state?: string | null
  }
  timeline?: TimelineEvent[]
  documents?: ClaimDocument[]
  payable_preview?: { lmi_cents: number; franchise_cents: number; max_approved_cents?: number } | null
  police_report?: { number?: string | null; issued_on?: string | null } | null
  decision?: {
    outcome: string
    settlement_method?: string | null
    approved_amount_cents?: number | null
    payable_amount_cents?: number | null
    reason_code?: string | null
    note?: string | null
    decided_at: string
  } | null
  settlement?: { reference?: string | null; settled_at: string } | null
}

export interface SearchResult {
  customers: {
    name: string
    document_masked?: string
    document_kind?: string
    customers?: { id: number; name: string; partner: PartnerRef }[]
    contracts: {
      kind: string
      id: string | number
      partner: PartnerRef
      status: string
      device?: string | DeviceInfo | null
      number?: string | null
      plan_name?: string
      contracted_at?: string
    }[]
  }[]
}

export interface PartnerSummary {
  id: number
  name: string
  document?: string | null
  gateway?: string
  active_credentials?: number
  active_plans?: number
  failing_endpoints?: number
  created_at?: string
}

export interface Credential {
  id: number
  client_id: string
  created_at: string
  revoked_at: string | null
}

export interface WebhookEndpoint {
  id: number | string
  url: string
  status?: string
  failing_since?: string | null
  deliveries_24h: { succeeded: number; failed: number; pending?: number }
  failing: {
    id?: number | string
    event_type?: string
    attempts?: number
    last_error?: string | null
    next_attempt_at?: string | null
  }[]
}

export interface PartnerDetail extends PartnerSummary {
  credentials: Credential[]
  plans: {
    id: number
    name: string
    kind?: string
    active?: boolean
    is_default?: boolean
    installments?: number
  }[]
  webhook_endpoints: WebhookEndpoint[]
}

export interface Refund {
  id: number
  status: string
  amount_cents: number
  partner?: PartnerRef
  annual_plan_id?: number
  policy_number?: string | null
  customer_name?: string
  attempts?: number
  last_error?: string | null
  next_attempt_at?: string
  created_at?: string
}

export interface AuditEntry {
  id: number
  at?: string
  created_at?: string
  actor?: number | null
  actor_label?: string
  operator?: string | { id?: number; email?: string; cli?: string } | null
  action: string
  record_type: string
  record_id: string
  before?: unknown
  after?: unknown
  ip?: string | null
}
