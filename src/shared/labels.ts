// One Portuguese label per code a person reads (docs/decisions.md, "One label per code"): the
// partner API's `*_label` fields, the operator console (which imports this file when it is built),
// the certificate and the messages all take their words from here. Plain data and pure functions,
// no import: the console's bundle includes it as it is.

export const CLAIM_STATUS_LABELS = {
  documents_pending: 'Aguardando documentos',
  under_review: 'Em análise',
  approved: 'Aprovado',
  denied: 'Negado',
  settled: 'Concluído',
  withdrawn: 'Desistência',
} as const

/** The perils a plan covers and a claim names. */
export const PERIL_LABELS = {
  robbery: 'Roubo',
  qualified_theft: 'Furto qualificado',
  accidental_damage: 'Quebra acidental',
  liquid_damage: 'Danos por líquido',
} as const

export const SUBSCRIPTION_STATUS_LABELS = {
  pending: 'Pendente',
  pago: 'Pago',
  canceled: 'Cancelado',
  expired: 'Expirado',
} as const

export const INSTALLMENT_STATUS_LABELS = {
  pending: 'Pendente',
  paid: 'Pago',
  refused: 'Recusado',
  canceled: 'Cancelado',
} as const

export const ANNUAL_PLAN_STATUS_LABELS = {
  awaiting_payment: 'Aguardando pagamento',
  paid: 'Pago',
  protected: 'Protegido',
  expired: 'Expirado',
  canceled: 'Cancelado',
} as const

/** A refund of a canceled annual plan. */
export const REFUND_STATUS_LABELS = {
  none: 'Sem reembolso',
  pending: 'Pendente',
  succeeded: 'Reembolsado',
  failed: 'Com falha',
  partner: 'Pelo parceiro',
} as const

/** How an installment or annual plan was paid (`paid_with`; docs/decisions.md, "How a contract was paid"). */
export const PAID_WITH_LABELS = {
  card: 'Cartão',
  pix: 'PIX',
  boleto: 'Boleto',
  external: 'Pago ao parceiro',
} as const

export const CONTRACT_KIND_LABELS = {
  subscription: 'Assinatura',
  annual_plan: 'Plano anual',
} as const

/** What a plan sells. */
export const PLAN_KIND_LABELS = {
  subscription: 'Assinatura mensal',
  annual: 'Plano anual',
} as const

export const DOCUMENT_KIND_LABELS = {
  police_report: 'Boletim de ocorrência',
  imei_block: 'Protocolo de bloqueio do IMEI',
  invoice: 'Nota fiscal',
  photo: 'Foto do aparelho',
  repair_quote: 'Orçamento de reparo',
  id_document: 'Documento de identidade',
  other: 'Outro documento',
} as const

export const SETTLEMENT_METHOD_LABELS = {
  repair: 'Reparo',
  replacement: 'Reposição',
  indemnity: 'Indenização',
} as const

export const DENIAL_REASON_LABELS = {
  not_covered: 'Não coberto',
  outside_coverage: 'Fora da vigência',
  late_notice: 'Aviso fora do prazo',
  documents_invalid: 'Documentos inválidos',
  fraud_suspected: 'Suspeita de fraude',
  other: 'Outro motivo',
} as const

export const FRAUD_SIGNAL_LABELS = {
  early_claim: 'Sinistro precoce (até 30 dias do início)',
  repeat_device: 'Aparelho com outro sinistro (24 meses)',
  repeat_customer: 'Cliente com 2 ou mais sinistros (12 meses)',
  recent_card_change: 'Cartão trocado até 7 dias antes',
  reused_document: 'Documento já enviado em sinistro de outro cliente',
} as const

/** Where a claim stands against its deadline (docs/decisions.md, Claim deadline). */
export const DEADLINE_STATE_LABELS = {
  suspended: 'Prazo suspenso',
  overdue: 'Atrasado',
  due_this_week: 'Vence esta semana',
  on_time: 'No prazo',
} as const

export const EVENT_TYPE_LABELS = {
  'subscription.created': 'Assinatura criada',
  'subscription.activated': 'Assinatura ativada',
  'subscription.canceled': 'Assinatura cancelada',
  'subscription.expired': 'Assinatura expirada',
  'installment.paid': 'Parcela paga',
  'installment.payment_failed': 'Pagamento de parcela recusado',
  'annual_plan.created': 'Plano anual criado',
  'annual_plan.paid': 'Plano anual pago',
  'annual_plan.protected': 'Proteção iniciada',
  'annual_plan.expired': 'Plano anual expirado',
  'annual_plan.cancellation_requested': 'Cancelamento pedido',
  'annual_plan.canceled': 'Plano anual cancelado',
  'annual_plan.refund_updated': 'Reembolso atualizado',
  'payment.disputed': 'Pagamento contestado',
  'claim.opened': 'Sinistro aberto',
  'claim.under_review': 'Sinistro em análise',
  'claim.documents_requested': 'Documentos solicitados',
  'claim.approved': 'Sinistro aprovado',
  'claim.denied': 'Sinistro negado',
  'claim.settled': 'Sinistro concluído',
  'claim.withdrawn': 'Desistência do sinistro',
  ping: 'Teste de webhook',
} as const

/** What each entry of a claim's activity feed says happened (console only). */
export const ACTIVITY_LABELS = {
  opened: 'Sinistro aberto',
  document_received: 'Documento recebido',
  documents_requested: 'Documentos solicitados',
  note: 'Nota interna',
  approved: 'Aprovado',
  denied: 'Negado',
  settled: 'Concluído',
  assigned: 'Responsável alterado',
} as const

/** Who charges the partner's customers' cards. */
export const GATEWAY_MODE_LABELS = {
  external: 'Cobrança pelo parceiro',
  own: 'Cobrança pela Amparo',
} as const

export const ROLE_LABELS = {
  admin: 'Administrador',
  adjuster: 'Regulador',
  viewer: 'Leitura',
} as const

/** Each action the audit log records. */
export const AUDIT_ACTION_LABELS = {
  'claim.approve': 'Sinistro aprovado',
  'claim.deny': 'Sinistro negado',
  'claim.settle': 'Sinistro concluído',
  'claim.request_documents': 'Documentos solicitados',
  'claim.assign': 'Responsável do sinistro alterado',
  'claim.note': 'Nota interna escrita',
  'credentials.issue': 'Credencial emitida',
  'credentials.revoke': 'Credencial revogada',
  'operator.create': 'Operador criado',
  'operator.disable': 'Operador desativado',
  'operator.enroll_totp': 'Segundo fator cadastrado',
  'operator.reset_password': 'Senha redefinida',
  'operator.reset_totp': 'Segundo fator redefinido',
  'operator.change_password': 'Senha trocada',
  'partner.create': 'Parceiro criado',
  'partner.gateway': 'Cobrança do parceiro alterada',
  'partner.notify_insured': 'Mensagens aos segurados ligadas ou desligadas',
  'plan.create': 'Plano criado',
  'refund.retry': 'Reembolso tentado de novo',
  'session.sign_in': 'Entrada no console',
  'session.sign_in_failed': 'Entrada recusada',
  'session.sign_out': 'Saída do console',
  'portal.sign_in': 'Entrada do segurado no portal',
  'portal.claim_open': 'Sinistro aberto pelo segurado',
  'portal.claim_document': 'Documento enviado pelo segurado',
  'portal.withdraw': 'Arrependimento pelo segurado',
  'portal.card_update': 'Cartão trocado pelo segurado',
  'portal.pay_by_card': 'Parcela paga com cartão pelo segurado',
  'portal.pix_request': 'Código PIX gerado pelo segurado',
} as const

/** What an audit entry changed. */
export const AUDIT_RECORD_LABELS = {
  claim: 'Sinistro',
  credentials: 'Credencial',
  operator: 'Operador',
  partner: 'Parceiro',
  plan: 'Plano',
  refund: 'Reembolso',
  subscription: 'Assinatura',
  annual_plan: 'Plano anual',
  session: 'Sessão',
  portal_session: 'Sessão no portal',
} as const

/** Who opened a claim. */
export const CLAIM_OPENER_LABELS = {
  partner: 'Parceiro',
  insured: 'Segurado (portal)',
} as const

/** What a message to the insured says (README, Messages to the insured). */
export const MESSAGE_KIND_LABELS = {
  sign_in: 'Acesso ao portal',
  contract_in_force: 'Proteção em vigor',
  installment_declined: 'Pagamento recusado',
  installment_overdue: 'Parcela em atraso',
  claim_opened: 'Sinistro aberto',
  claim_documents_requested: 'Documentos pedidos',
  claim_approved: 'Sinistro aprovado',
  claim_denied: 'Sinistro negado',
  claim_settled: 'Sinistro concluído',
  contract_canceled: 'Cancelamento',
} as const

export const MESSAGE_STATE_LABELS = {
  pending: 'Na fila',
  sent: 'Enviada',
  kept: 'Guardada (sem servidor de e-mail)',
  failed: 'Não entregue',
} as const

/** Where a chargeback stands (the console's Disputas, `payment.disputed`). */
export const DISPUTE_STATUS_LABELS = {
  disputed: 'Em disputa',
  won: 'Disputa ganha',
  lost: 'Disputa perdida',
} as const

/** Stripe's reason for a chargeback. */
export const DISPUTE_REASON_LABELS = {
  bank_cannot_process: 'Banco não pôde processar',
  credit_not_processed: 'Crédito não processado',
  customer_initiated: 'Iniciada pelo cliente',
  debit_not_authorized: 'Débito não autorizado',
  duplicate: 'Cobrança duplicada',
  fraudulent: 'Fraude',
  general: 'Outro motivo',
  incorrect_account_details: 'Dados da conta incorretos',
  insufficient_funds: 'Saldo insuficiente',
  product_not_received: 'Produto não recebido',
  product_unacceptable: 'Produto inaceitável',
  subscription_canceled: 'Assinatura cancelada',
  unrecognized: 'Cobrança não reconhecida',
} as const

export type LabelTable = Readonly<Record<string, string>>

/** Every table, by the name a test or a reader looks it up under. */
export const LABEL_TABLES = {
  claimStatus: CLAIM_STATUS_LABELS,
  peril: PERIL_LABELS,
  subscriptionStatus: SUBSCRIPTION_STATUS_LABELS,
  installmentStatus: INSTALLMENT_STATUS_LABELS,
  annualPlanStatus: ANNUAL_PLAN_STATUS_LABELS,
  refundStatus: REFUND_STATUS_LABELS,
  paidWith: PAID_WITH_LABELS,
  contractKind: CONTRACT_KIND_LABELS,
  planKind: PLAN_KIND_LABELS,
  documentKind: DOCUMENT_KIND_LABELS,
  settlementMethod: SETTLEMENT_METHOD_LABELS,
  denialReason: DENIAL_REASON_LABELS,
  fraudSignal: FRAUD_SIGNAL_LABELS,
  deadlineState: DEADLINE_STATE_LABELS,
  eventType: EVENT_TYPE_LABELS,
  gatewayMode: GATEWAY_MODE_LABELS,
  role: ROLE_LABELS,
  auditAction: AUDIT_ACTION_LABELS,
  auditRecord: AUDIT_RECORD_LABELS,
  messageKind: MESSAGE_KIND_LABELS,
  messageState: MESSAGE_STATE_LABELS,
  claimOpener: CLAIM_OPENER_LABELS,
  disputeStatus: DISPUTE_STATUS_LABELS,
  disputeReason: DISPUTE_REASON_LABELS,
} as const satisfies Record<string, LabelTable>

/** A code's label; an unknown code (one newer than this build) reads as "Outro" rather than as English. */
export function labelOf(table: LabelTable, code: string | null | undefined): string {
  if (code == null) return '—'
  return Object.hasOwn(table, code) ? (table[code] as string) : 'Outro'
}

/** "1 sinal", "3 sinais": a count with its noun, never "sinal(is)". */
export function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString('pt-BR')} ${count === 1 ? one : many}`
}

/**
 * A webhook delivery's or a refund's failure as stored (the partner API's `last_error`, in English
 * for developers: "HTTP 503", "connection failed (ECONNREFUSED)", "gateway_unavailable") → what an
 * operator reads: what happened, without status numbers or system codes.
 */
export function deliveryErrorLabel(error: string | null | undefined): string {
  if (!error) return '—'
  const status = /^HTTP (\d{3})$/.exec(error)?.[1] ?? /\(HTTP (\d{3})\)/.exec(error)?.[1]
  if (status) {
    const n = Number(status)
    if (n >= 300 && n < 400) return 'O endereço redireciona para outro (redirecionamento não seguido)'
    if (n === 404 || n === 410) return 'O endereço não existe no servidor do parceiro'
    if (n === 401 || n === 403) return 'O servidor do parceiro recusou a assinatura ou o acesso'
    if (n === 408 || n === 504) return 'O servidor do parceiro demorou demais para responder'
    if (n === 429) return 'O servidor do parceiro pediu para esperar (excesso de envios)'
    if (n >= 500) return 'O servidor do parceiro falhou ao receber'
    return 'O servidor do parceiro recusou o envio'
  }
  if (/^no answer within/.test(error)) return 'Sem resposta no tempo limite'
  if (/private or reserved address/.test(error)) return 'Recusado: o endereço aponta para uma rede privada'
  if (error === 'invalid url') return 'Endereço inválido'
  const code = /^connection failed(?: \((\w+)\))?$/.exec(error)
  if (code) {
    const why: Record<string, string> = {
      ECONNREFUSED: 'o servidor recusou a conexão',
      ENOTFOUND: 'o nome do servidor não foi encontrado',
      EAI_AGAIN: 'o nome do servidor não pôde ser resolvido agora',
      ECONNRESET: 'a conexão foi interrompida',
      ETIMEDOUT: 'o servidor não respondeu',
      EHOSTUNREACH: 'o servidor está inalcançável',
      CERT_HAS_EXPIRED: 'o certificado do servidor expirou',
      DEPTH_ZERO_SELF_SIGNED_CERT: 'o certificado do servidor não é confiável',
      UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'o certificado do servidor não é confiável',
    }
    const reason = code[1] ? why[code[1]] : undefined
    return reason ? `Falha de conexão: ${reason}` : 'Falha de conexão'
  }
  if (error === 'gateway_unavailable') return 'O gateway de pagamento não respondeu'
  if (error === 'gateway_refused') return 'O gateway de pagamento recusou o estorno'
  if (error === 'unexpected error') return 'Erro inesperado (ver os registros do serviço)'
  return 'Falha no envio'
}
