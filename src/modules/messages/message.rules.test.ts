import { describe, expect, it } from 'vitest'
import {
  certificateOf,
  eventMessageKey,
  messageIdHeader,
  messageKindOf,
  nextAttemptAt,
  RETRY_WINDOW_MS,
  recipientOf,
  subjectForOperator,
} from './message.rules.js'
import { compose, dateBr, reais } from './message-content.js'
import { eventContent } from './message-event-content.js'

describe('messageKindOf', () => {
  it.each([
    ['subscription.activated', {}, 'external', 'contract_in_force'],
    ['annual_plan.paid', {}, null, 'contract_in_force'],
    ['annual_plan.protected', {}, null, null],
    ['installment.payment_failed', { next_attempt_on: '2026-12-10' }, 'own', 'installment_declined'],
    ['installment.payment_failed', { next_attempt_on: null }, 'own', 'installment_overdue'],
    ['installment.payment_failed', { next_attempt_on: '2026-12-10' }, 'external', null],
    ['installment.paid', {}, 'own', null],
    ['claim.opened', {}, null, 'claim_opened'],
    ['claim.under_review', {}, null, null],
    ['claim.documents_requested', {}, null, 'claim_documents_requested'],
    ['claim.approved', {}, null, 'claim_approved'],
    ['claim.denied', {}, null, 'claim_denied'],
    ['claim.settled', {}, null, 'claim_settled'],
    ['claim.withdrawn', {}, null, null],
    ['subscription.canceled', {}, null, 'contract_canceled'],
    ['annual_plan.canceled', {}, null, 'contract_canceled'],
    ['annual_plan.cancellation_requested', {}, null, null],
    ['ping', {}, null, null],
  ])('%s %o under %s → %s', (type, object, gateway, kind) => {
    expect(messageKindOf(type, object, gateway)).toBe(kind)
  })
})

describe('recipientOf and certificateOf', () => {
  it.each([
    ['claim.opened', { customer: { id: 7 } }, { customerId: 7 }],
    ['installment.payment_failed', { subscription_id: 3 }, { subscriptionId: 3 }],
    ['installment.payment_failed', {}, null],
    ['ping', { endpoint_id: 1 }, null],
  ])('%s %o → %o', (type, object, to) => {
    expect(recipientOf(type, object)).toEqual(to)
  })

  it.each([
    ['subscription.activated', { id: 4 }, { product: 'subscription', id: 4 }],
    ['annual_plan.paid', { id: 5 }, { product: 'annual_plan', id: 5 }],
    ['claim.opened', { id: 6 }, null],
  ])('%s %o attaches %o', (type, object, certificate) => {
    expect(certificateOf(type, object)).toEqual(certificate)
  })
})

describe('Message-ID', () => {
  it.each([
    ['Amparo <avisos@amparo.example>', '<evt_1.c2@amparo.example>'],
    ['avisos@seguros.example.com.br', '<evt_1.c2@seguros.example.com.br>'],
    ['sem endereço', '<evt_1.c2@amparo.invalid>'],
  ])('from %s → %s', (from, header) => {
    expect(messageIdHeader(eventMessageKey('evt_1', 2), from)).toBe(header)
  })
})

describe('nextAttemptAt', () => {
  const queued = new Date('2026-12-07T12:00:00Z')
  const plus = (ms: number) => new Date(queued.getTime() + ms)
  it.each([
    [1, 0, 60_000],
    [2, 60_000, 60_000 + 5 * 60_000],
    [3, 0, 15 * 60_000],
    [6, 0, 6 * 3_600_000],
    [9, 3_600_000, 7 * 3_600_000],
    [9, RETRY_WINDOW_MS - 6 * 3_600_000, RETRY_WINDOW_MS],
    [9, RETRY_WINDOW_MS - 6 * 3_600_000 + 1, null],
  ])('after attempt %i at +%i ms → %s', (attempts, at, next) => {
    expect(nextAttemptAt(attempts, queued, plus(at))).toEqual(next === null ? null : plus(next))
  })
})

describe('the words', () => {
  it.each([
    [0, 'R$ 0,00'],
    [12.5, 'R$ 12,50'],
    [1234567.89, 'R$ 1.234.567,89'],
  ])('reais(%d) = %s', (amount, text) => {
    expect(reais(amount)).toBe(text)
  })

  it('writes dates the Brazilian way', () => {
    expect(dateBr('2026-11-21')).toBe('21/11/2026')
    expect(dateBr('2026-11-21 10:00:00')).toBe('21/11/2026')
  })

  it('escapes what a person typed in the HTML part, and keeps it as typed in the text', () => {
    const content = compose('Assunto', ['<b>Olá</b> & "você"'], 'Assinatura')
    expect(content.text).toBe('<b>Olá</b> & "você"\n\nAssinatura\n')
    expect(content.html).toContain('<p>&lt;b&gt;Olá&lt;/b&gt; &amp; &quot;você&quot;</p>')
  })

  it.each([
    [
      'claim_approved',
      {
        number: 'SIN-2026-000001',
        type: 'robbery',
        device: { model: { name: 'iPhone 16 Pro' } },
        franchise: 1349.85,
        decision: { settlement_method: 'indemnity', approved_amount: 5000, payable_amount: 3650.15 },
      },
      [
        'Sinistro SIN-2026-000001 aprovado',
        'Indenização',
        'Valor a pagar: R$ 3.650,15',
        'franquia de R$ 1.349,85',
      ],
    ],
    [
      'claim_documents_requested',
      {
        number: 'SIN-2026-000002',
        type: 'accidental_damage',
        documents_request: { kinds: ['photo', 'repair_quote'], message: 'Envie fotos da tela.' },
      },
      ['Foto do aparelho, Orçamento de reparo', '"Envie fotos da tela."', 'Quebra acidental'],
    ],
    [
      'contract_canceled',
      {
        plan: { name: 'Proteção Anual' },
        model: { name: 'Galaxy S25' },
        policy_number: 'AMP-2026-000001',
        cancellation: {
          confirmed_at: '2026-12-01 10:00:00',
          refund_amount: 412.5,
          refund_due_date: '2026-12-16',
        },
      },
      [
        'Proteção cancelada: Proteção Anual do Galaxy S25',
        'Reembolso: R$ 412,50, até 16/12/2026',
        'cancelada em 01/12/2026',
      ],
    ],
    [
      'installment_declined',
      { number: 3, amount: 54, due_date: '2026-12-05', next_attempt_on: '2026-12-06' },
      ['parcela 3, de R$ 54,00', 'Tentaremos de novo em 06/12/2026'],
    ],
  ] as const)('%s says what happened, in Portuguese', (kind, object, phrases) => {
    const content = eventContent(kind, object, {
      name: 'Maria da Silva',
      partnerName: 'Loja',
      link: 'http://p/#/entrar/x',
    })
    const all = `${content.subject}\n${content.text}`
    for (const phrase of phrases) expect(all).toContain(phrase)
    expect(content.text.startsWith('Olá, Maria.')).toBe(true)
    expect(content.text).toContain('http://p/#/entrar/x')
    expect(all).not.toMatch(/undefined|null|NaN/)
  })
})

describe('subjectForOperator', () => {
  it('shows a sign-in code in test and hides it in production; other subjects as written', () => {
    expect(subjectForOperator('sign_in', 'Seu código de acesso: 482913', 'test')).toBe(
      'Seu código de acesso: 482913',
    )
    expect(subjectForOperator('sign_in', 'Seu código de acesso: 482913', 'production')).toBe(
      'Seu código de acesso: ••••••',
    )
    const claim = 'Sinistro 2026-000123 aberto'
    expect(subjectForOperator('claim_opened', claim, 'production')).toBe(claim)
  })
})
