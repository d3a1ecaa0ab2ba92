import {
  DENIAL_REASON_LABELS,
  DOCUMENT_KIND_LABELS,
  labelOf,
  PERIL_LABELS,
  SETTLEMENT_METHOD_LABELS,
} from '../../shared/labels.js'
import type { EventObject, MessageKind } from './message.rules.js'
import {
  type Content,
  compose,
  dateBr,
  greeting,
  type Paragraph,
  reais,
  SIGNATURE,
} from './message-content.js'

// The words of each message an event makes (README, Messages to the insured), from the event's
// resource as the partner API shows it. Pure.

export interface Addressee {
  name: string
  partnerName: string
  /** A single-use sign-in link to the portal; null when the portal has no address. */
  link: string | null
}

/** "Proteção Total 12x do iPhone 16 Pro" for a contract; the policy number when it has one. */
function contractName(o: EventObject): string {
  const plan = o.plan?.name ?? 'Proteção'
  const model = o.model?.name ?? o.device?.name
  return model ? `${plan} do ${model}` : plan
}

const policy = (o: EventObject) => (o.policy_number ? ` (apólice ${o.policy_number})` : '')

function claimName(o: EventObject): string {
  const model = o.device?.model?.name
  return `sinistro ${o.number}${model ? ` do ${model}` : ''} (${labelOf(PERIL_LABELS, o.type)})`
}

type Writer = (o: EventObject, to: Addressee) => { subject: string; paragraphs: Paragraph[] }

const WRITERS: Record<Exclude<MessageKind, 'sign_in'>, Writer> = {
  contract_in_force: (o, to) => ({
    subject: `Sua proteção está em vigor: ${contractName(o)}`,
    paragraphs: [
      `Sua proteção ${contractName(o)}${policy(o)}, contratada com ${to.partnerName}, está em vigor.`,
      'O certificado vai em anexo (PDF): guarde-o, ele comprova a sua cobertura.',
    ],
  }),
  installment_declined: (o) => ({
    subject: `Pagamento recusado: parcela ${o.number} da sua proteção`,
    paragraphs: [
      `O cartão recusou a cobrança da parcela ${o.number}, de ${reais(o.amount)}, com vencimento em ${dateBr(o.due_date)}.`,
      `Tentaremos de novo em ${dateBr(o.next_attempt_on)}. Para não perder a cobertura, confira o limite do cartão ou troque o cartão no Portal do segurado.`,
    ],
  }),
  installment_overdue: (o) => ({
    subject: `Parcela em atraso: parcela ${o.number} da sua proteção`,
    paragraphs: [
      `A parcela ${o.number}, de ${reais(o.amount)}, com vencimento em ${dateBr(o.due_date)}, continua sem pagamento depois das novas tentativas de cobrança.`,
      'Pague a parcela ou troque o cartão no Portal do segurado para manter a sua proteção.',
    ],
  }),
  claim_opened: (o) => ({
    subject: `Sinistro ${o.number} aberto`,
    paragraphs: [
      `Recebemos o ${claimName(o)}.`,
      (o.required_documents ?? []).length > 0
        ? `Para a análise, envie: ${(o.required_documents as string[]).map((k) => labelOf(DOCUMENT_KIND_LABELS, k)).join(', ')}.`
        : 'Os documentos necessários já foram recebidos; a análise começa agora.',
    ],
  }),
  claim_documents_requested: (o) => ({
    subject: `Sinistro ${o.number}: precisamos de documentos`,
    paragraphs: [
      `Para continuar a análise do ${claimName(o)}, o analista pede: ${((o.documents_request?.kinds ?? []) as string[]).map((k) => labelOf(DOCUMENT_KIND_LABELS, k)).join(', ')}.`,
      `Mensagem do analista: "${o.documents_request?.message ?? ''}"`,
      'Envie os documentos pelo Portal do segurado.',
    ],
  }),
  claim_approved: (o) => ({
    subject: `Sinistro ${o.number} aprovado`,
    paragraphs: [
      `O ${claimName(o)} foi aprovado: ${labelOf(SETTLEMENT_METHOD_LABELS, o.decision?.settlement_method)}.`,
      `Valor a pagar: ${reais(o.decision?.payable_amount ?? 0)} (valor aprovado de ${reais(o.decision?.approved_amount ?? 0)}, menos a franquia de ${reais(o.franchise ?? 0)}).`,
    ],
  }),
  claim_denied: (o) => ({
    subject: `Sinistro ${o.number} negado`,
    paragraphs: [
      `O ${claimName(o)} foi negado. Motivo: ${labelOf(DENIAL_REASON_LABELS, o.decision?.reason_code)}.`,
      ...(o.decision?.note ? [`Observação do analista: "${o.decision.note}"`] : []),
    ],
  }),
  claim_settled: (o) => ({
    subject: `Sinistro ${o.number} concluído`,
    paragraphs: [
      `O ${claimName(o)} foi concluído em ${dateBr(o.settlement?.settled_at ?? o.updated_at)}: ${labelOf(SETTLEMENT_METHOD_LABELS, o.decision?.settlement_method)} de ${reais(o.decision?.payable_amount ?? 0)}.`,
      ...(o.settlement?.reference ? [`Referência: ${o.settlement.reference}.`] : []),
    ],
  }),
  contract_canceled: (o) => {
    const c = o.cancellation ?? {}
    const refund =
      typeof c.refund_amount === 'number'
        ? c.refund_amount > 0
          ? `Reembolso: ${reais(c.refund_amount)}, até ${dateBr(c.refund_due_date ?? c.confirmed_at ?? o.updated_at)}${c.refund_status === 'partner' ? ', pago por quem lhe vendeu a proteção' : ', no mesmo cartão do pagamento'}.`
          : 'Não há valor a reembolsar.'
        : 'Nenhuma parcela futura será cobrada.'
    return {
      subject: `Proteção cancelada: ${contractName(o)}`,
      paragraphs: [
        `Sua proteção ${contractName(o)}${policy(o)} foi cancelada em ${dateBr(c.canceled_at ?? c.confirmed_at ?? o.updated_at)}; a cobertura terminou.`,
        refund,
      ],
    }
  },
}

/** The message an event makes for its customer, with the sign-in link when there is one. */
export function eventContent(
  kind: Exclude<MessageKind, 'sign_in'>,
  object: EventObject,
  to: Addressee,
): Content {
  const { subject, paragraphs } = WRITERS[kind](object, to)
  const link: Paragraph[] = to.link
    ? [
        {
          text: 'Veja os detalhes no Portal do segurado (link de acesso válido por 24 horas, uma só vez):',
          link: to.link,
        },
      ]
    : []
  return compose(subject, [greeting(to.name), ...paragraphs, ...link], SIGNATURE)
}
