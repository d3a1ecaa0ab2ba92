// What the insured's page decides (README, Portal do segurado): the pure rules, table-tested.

/** The consumer's right of withdrawal: 7 days from contracting (Código de Defesa do Consumidor, art. 49). */
export const WITHDRAWAL_DAYS = 7
const DAY_MS = 86_400_000

export function withinWithdrawal(contractedAt: string, now: string): boolean {
  return Date.parse(now) - Date.parse(contractedAt) < WITHDRAWAL_DAYS * DAY_MS
}

export type NextStep =
  | 'pay_first'
  | 'pay_overdue'
  | 'follow_claim'
  | 'claim_if_needed'
  | 'awaiting_start'
  | 'ended'

export interface ContractFacts {
  /** in_force: a claim could be opened on a loss now; waiting: paid, coverage not begun; ended. */
  stage: 'unpaid' | 'waiting' | 'in_force' | 'ended'
  overdue: boolean
  openClaim: boolean
}

/** What the insured should do next with a contract, as one code the page words. */
export function nextStep({ stage, overdue, openClaim }: ContractFacts): NextStep {
  if (openClaim) return 'follow_claim'
  if (stage === 'ended') return 'ended'
  if (stage === 'unpaid') return 'pay_first'
  if (overdue) return 'pay_overdue'
  if (stage === 'waiting') return 'awaiting_start'
  return 'claim_if_needed'
}

export const NEXT_STEP_TEXT: Record<NextStep, string> = {
  pay_first: 'Pague a primeira parcela na loja para a proteção começar.',
  pay_overdue: 'Há parcela em atraso: pague-a para manter a proteção.',
  follow_claim: 'Há um sinistro aberto: acompanhe-o em Meus sinistros.',
  claim_if_needed: 'Protegido. Em caso de roubo, furto ou quebra, abra um sinistro aqui.',
  awaiting_start: 'Pago. A proteção começa à 0h do dia seguinte ao pagamento.',
  ended: 'Esta proteção terminou.',
}

/** The words of a step; an own-gateway contract is paid here, not at the store. */
export function nextStepText(step: NextStep, ownGateway: boolean): string {
  if (ownGateway && step === 'pay_first')
    return 'Pague a primeira parcela aqui, com cartão ou PIX, para a proteção começar.'
  if (ownGateway && step === 'pay_overdue')
    return 'Há parcela em atraso: pague-a aqui para manter a proteção.'
  return NEXT_STEP_TEXT[step]
}

// — Paying from the page (own-gateway contracts) —

export interface InstallmentFacts {
  number: number
  status: 'pending' | 'paid' | 'refused' | 'canceled'
  /** `YYYY-MM-DD`, service zone. */
  due_date: string
}

/**
 * Whether the insured may pay an installment now: installment 1 while unpaid (declined included) on
 * a pending subscription; a later one once it is due and still pending on one in force, which the
 * card update charges (operation `updateSubscriptionCard`).
 */
export function payableNow(
  subscriptionStatus: string,
  installment: InstallmentFacts,
  today: string,
): boolean {
  if (subscriptionStatus === 'pending')
    return installment.number === 1 && (installment.status === 'pending' || installment.status === 'refused')
  return (
    subscriptionStatus === 'pago' &&
    installment.number > 1 &&
    installment.status === 'pending' &&
    installment.due_date <= today
  )
}

export interface PayingOptions {
  /** The partner collects through Amparo's gateway: the page may take payments. */
  own_gateway: boolean
  /** Trocar cartão: a subscription in force keeps a card for its recurrence. */
  replace_card: boolean
  /** Pagar com cartão: something is payable now. */
  pay_by_card: boolean
  /** Pagar com PIX: something is payable now (an annual plan awaiting payment, or an installment). */
  pix: boolean
}

/** What the page offers to pay on a contract. */
export function payingOptions(
  ownGateway: boolean,
  contract:
    | { kind: 'subscription'; status: string; installments: InstallmentFacts[]; today: string }
    | { kind: 'annual_plan'; status: string },
): PayingOptions {
  if (!ownGateway) return { own_gateway: false, replace_card: false, pay_by_card: false, pix: false }
  if (contract.kind === 'annual_plan') {
    const unpaid = contract.status === 'awaiting_payment'
    return { own_gateway: true, replace_card: false, pay_by_card: false, pix: unpaid }
  }
  const payable = contract.installments.some((i) => payableNow(contract.status, i, contract.today))
  return {
    own_gateway: true,
    replace_card: contract.status === 'pago',
    pay_by_card: payable,
    pix: payable,
  }
}
