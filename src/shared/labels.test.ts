import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FraudSignal } from '../db/tables/claim.js'
import { OPERATOR_ROLES } from '../db/tables/operator.js'
import type { GatewayMode } from '../db/tables/partner.js'
import type { DisputeStatus, PaidWith } from '../db/tables/payment-code.js'
import type { PlanKind } from '../db/tables/plan.js'
import type { InstallmentStatus, SubscriptionStatus } from '../db/tables/subscription.js'
import { AnnualPlanStatus, RefundStatus } from '../modules/annual-plans/annual-plan.schemas.js'
import {
  CLAIM_STATUSES,
  CLAIM_TYPES,
  DENIAL_REASONS,
  DOCUMENT_KINDS,
  SETTLEMENT_METHODS,
} from '../modules/claims/claim.rules.js'
import type { DeadlineState } from '../modules/claims/claim-deadline.rules.js'
import { EVENT_TYPES } from '../modules/events/event.service.js'
import { DISPUTE_REASONS } from '../modules/gateway-events/dispute.rules.js'
import { MESSAGE_KINDS, MESSAGE_STATES } from '../modules/messages/message.rules.js'
import { portugueseMessage } from '../plugins/messages.js'
import { SERVICE_MESSAGES } from '../plugins/service-messages.js'
import { deliveryErrorLabel, LABEL_TABLES, type LabelTable, labelOf, plural } from './labels.js'

// The one-label-per-code table (docs/decisions.md, "One label per code"): every code of every
// enum a person can meet has its Portuguese label, and no Portuguese message shows a code.

/** The keys of a Record the compiler holds complete: a union's members as a list. */
const all = <K extends string>(members: Record<K, true>) => Object.keys(members) as K[]
const enumOf = (schema: { enum?: readonly string[] }) => [...(schema.enum ?? [])]

const SRC = join(import.meta.dirname, '..')
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })

/** Every audit action the code writes (`action: 'claim.approve'`, `action: \`claim.${…}\``). */
function auditActions(): string[] {
  const found = new Set<string>()
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8')
    if (!/recordAudit\(|audit/.test(text)) continue
    for (const m of text.matchAll(/action: '([a-z_]+\.[a-z_]+)'/g)) found.add(m[1] as string)
    // A template over the three decisions (the console's and the CLI's).
    if (/action: `claim\.\$\{/.test(text))
      for (const a of ['approve', 'deny', 'settle']) found.add(`claim.${a}`)
  }
  return [...found]
}

const ENUMS: [keyof typeof LABEL_TABLES, string[]][] = [
  ['claimStatus', [...CLAIM_STATUSES]],
  ['peril', [...CLAIM_TYPES]],
  [
    'subscriptionStatus',
    all<SubscriptionStatus>({ pending: true, pago: true, canceled: true, expired: true }),
  ],
  ['installmentStatus', all<InstallmentStatus>({ pending: true, paid: true, refused: true, canceled: true })],
  ['annualPlanStatus', enumOf(AnnualPlanStatus)],
  ['refundStatus', enumOf(RefundStatus)],
  ['paidWith', all<PaidWith>({ card: true, pix: true, boleto: true, external: true })],
  ['contractKind', ['subscription', 'annual_plan']],
  ['planKind', all<PlanKind>({ subscription: true, annual: true })],
  ['documentKind', [...DOCUMENT_KINDS]],
  ['settlementMethod', [...SETTLEMENT_METHODS]],
  ['denialReason', [...DENIAL_REASONS]],
  [
    'fraudSignal',
    all<FraudSignal>({
      early_claim: true,
      repeat_device: true,
      repeat_customer: true,
      recent_card_change: true,
      reused_document: true,
    }),
  ],
  [
    'deadlineState',
    all<DeadlineState>({ suspended: true, overdue: true, due_this_week: true, on_time: true }),
  ],
  ['eventType', [...EVENT_TYPES]],
  ['gatewayMode', all<GatewayMode>({ external: true, own: true })],
  ['role', [...OPERATOR_ROLES]],
  ['auditAction', auditActions()],
  ['messageKind', [...MESSAGE_KINDS]],
  ['messageState', [...MESSAGE_STATES]],
  ['disputeStatus', all<DisputeStatus>({ disputed: true, won: true, lost: true })],
  ['disputeReason', [...DISPUTE_REASONS]],
]

describe('one Portuguese label per code', () => {
  it.each(ENUMS)('every %s code has a label', (table, codes) => {
    expect(codes.length).toBeGreaterThan(1)
    const labels: LabelTable = LABEL_TABLES[table]
    expect(codes.filter((code) => !Object.hasOwn(labels, code))).toEqual([])
  })

  it('gives each code of a table its own label', () => {
    for (const labels of Object.values(LABEL_TABLES) as LabelTable[]) {
      const texts = Object.values(labels)
      expect(new Set(texts).size).toBe(texts.length)
    }
  })

  it('names the one peril one way', () => {
    expect(labelOf(LABEL_TABLES.peril, 'liquid_damage')).toBe('Danos por líquido')
    expect(labelOf(LABEL_TABLES.peril, 'something_new')).toBe('Outro')
  })

  it.each([
    [0, '0 sinais'],
    [1, '1 sinal'],
    [3, '3 sinais'],
  ])('counts %i as “%s”', (n, text) => {
    expect(plural(n, 'sinal', 'sinais')).toBe(text)
  })

  it.each([
    ['HTTP 503', 'O servidor do parceiro falhou ao receber'],
    ['HTTP 404', 'O endereço não existe no servidor do parceiro'],
    ['redirect (HTTP 302) not followed', 'O endereço redireciona para outro (redirecionamento não seguido)'],
    ['connection failed (ECONNREFUSED)', 'Falha de conexão: o servidor recusou a conexão'],
    ['connection failed (EWHATEVER)', 'Falha de conexão'],
    ['no answer within 10 s', 'Sem resposta no tempo limite'],
    ['gateway_unavailable', 'O gateway de pagamento não respondeu'],
    [null, '—'],
  ])('reads the delivery error %s as “%s”', (error, text) => {
    expect(deliveryErrorLabel(error)).toBe(text)
  })
})

// Words an operator must never meet in a Portuguese message: the codes of every table.
const CODES = [
  ...new Set(
    Object.values(LABEL_TABLES as Record<string, LabelTable>).flatMap((t) =>
      Object.keys(t).flatMap((code) => [code, code.replace(/_/g, ' ')]),
    ),
  ),
]
  // Words that are also Portuguese or a field of every partner message (`boleto` is both; `card`
  // is in the request value `credit card` a validation message quotes).
  .filter(
    (code) => !['other', 'ping', 'paid', 'pago', 'own', 'none', 'partner', 'boleto', 'card'].includes(code),
  )
  .filter((code) => code.length > 3)

// A word of its own: not part of a path (`/annual-plans/{id}`) nor of a longer word.
const codesIn = (text: string) =>
  CODES.filter((code) =>
    new RegExp(`(^|[^\\p{L}_./-])${code.replace('.', '\\.')}($|[^\\p{L}_-])`, 'u').test(text),
  )

describe('no code in a Portuguese message', () => {
  // Placeholders that carry a status must translate it (`{{status:claimStatus}}`).
  it.each(Object.entries(SERVICE_MESSAGES))('%s', (_en, pt) => {
    expect(codesIn(pt.replace(/\{\{\w+(:\w+)?\}\}/g, ''))).toEqual([])
    expect(pt).not.toMatch(/\{\{status\}\}|\{\{action\}\}|\{\{allowed\}\}|\{\{role\}\}/)
  })

  it.each([
    [
      'The claim is denied (Negado): only a claim under review can be approved.',
      'O sinistro está “Negado”: só um sinistro em análise pode ser aprovado.',
    ],
    [
      'The claim is settled (Concluído): only a claim approved can be settled.',
      'O sinistro está “Concluído”: só um sinistro aprovado pode ser concluído.',
    ],
    [
      'The claim is withdrawn: only a claim awaiting documents or under review can be withdrawn.',
      'O sinistro está com desistência: só um sinistro aguardando documentos ou em análise pode ser retirado.',
    ],
    [
      'The to field must be a month at or after from.',
      'O mês final deve ser igual ou posterior ao mês inicial.',
    ],
    ['The from field must be a month, YYYY-MM.', 'O mês inicial deve ser um mês (AAAA-MM).'],
    ['This action needs the adjuster role.', 'Esta ação exige o papel Regulador.'],
    [
      'Only a pending subscription can be paid; this one is pago.',
      'Só uma assinatura pendente pode ser paga; esta está “Pago”.',
    ],
    [
      'The refund of annual plan 7 is succeeded, not failed.',
      'O reembolso do plano anual 7 está “Reembolsado”: só um reembolso com falha pode ser tentado de novo.',
    ],
  ])('%s → %s', (en, pt) => {
    expect(portugueseMessage(en, 'invalid_state')).toBe(pt)
    expect(codesIn(pt)).toEqual([])
  })
})
