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
