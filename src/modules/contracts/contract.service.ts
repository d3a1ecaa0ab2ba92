import type { Reader, Trx } from '../../db/database.js'
import type { AnnualPlanStatus } from '../../db/tables/annual-plan.js'
import type { PaidWith } from '../../db/tables/payment-code.js'
import type { CoverageType } from '../../db/tables/plan.js'
import type { SubscriptionStatus } from '../../db/tables/subscription.js'
import {
  type ContractRow,
  findContractRow,
  lockContractRow,
  nextPolicySerial,
} from './contract.repository.js'
import { policyNumber } from './contract.rules.js'
import type { ContractRef } from './contract-reference.js'

// The one lookup of a contract, whichever product it is: what claims, the claims desk and
// certificates read of it, in one shape.

/** The plan's claim terms, what a claim is checked against. */
export interface ClaimTerms {
  coverageTypes: CoverageType[]
  noticeDays: number
  maxClaimsPerYear: number
}

/** What every contract has, whichever product it is. */
interface ContractFacts {
  ref: ContractRef
  id: number
  partnerId: number
  policyNumber: string | null
  plan: { id: number; name: string }
  claimTerms: ClaimTerms
  customerId: number
  customerDocument: string
  modelId: number
  /** The device's serial numbers (an IMEI each for an annual plan), the second null for one device. */
  serials: [string | null, string | null]
  lmi: number
  franchise: number
  /** How it was paid: the first installment's or the annual plan's `paid_with`; null while unpaid. */
  paidWith: PaidWith | null
  createdAt: string
  updatedAt: string
}

export interface SubscriptionContract extends ContractFacts {
  kind: 'subscription'
  status: SubscriptionStatus
  /** Its number in its partner's sequence (`#12`). */
  partnerSeq: number
  endsOn: string
  canceledAt: string | null
  monthlyPremium: number
  installmentsCount: number
}

export interface AnnualPlanContract extends ContractFacts {
  kind: 'annual_plan'
  status: AnnualPlanStatus
  startsAt: string | null
  endsAt: string | null
  /** When its confirmed cancellation ended it; null without one. */
  canceledAt: string | null
  premium: number
}

export type Contract = SubscriptionContract | AnnualPlanContract

/** The partner's contract with its plan, customer and device; undefined when not theirs. */
export async function findContract(
  db: Reader,
  partnerId: number,
  ref: ContractRef,
): Promise<Contract | undefined> {
  const found = await findContractRow(db, partnerId, ref)
  return found && contractOf(ref, found)
}

/**
 * findContract, the row locked until commit on PostgreSQL, so two claims opened on one contract
 * see each other's (SQLite has one writer at a time already).
 */
export async function findContractForUpdate(
  trx: Trx,
  partnerId: number,
  ref: ContractRef,
): Promise<Contract | undefined> {
  const found = await lockContractRow(trx, partnerId, ref)
  return found && contractOf(ref, found)
}

function contractOf(ref: ContractRef, { kind, row }: ContractRow): Contract {
  const facts = {
    ref,
    id: row.id,
    partnerId: row.partner_id,
    policyNumber: row.policy_number,
    plan: { id: row.plan_id, name: row.plan_name },
    claimTerms: {
      coverageTypes: JSON.parse(row.coverage_types) as CoverageType[],
      noticeDays: row.claim_notice_days,
      maxClaimsPerYear: row.max_claims_per_year,
    },
    customerId: row.customer_id,
    customerDocument: row.customer_document,
    modelId: row.model_id,
    lmi: row.lmi,
    franchise: row.franchise,
    paidWith: row.paid_with,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
  if (kind === 'subscription') {
    return {
      ...facts,
      kind,
      serials: [row.serial_number, row.second_serial_number],
      status: row.status,
      partnerSeq: row.partner_seq,
      endsOn: row.ends_on,
      canceledAt: row.canceled_at,
      monthlyPremium: row.monthly_premium,
      installmentsCount: row.installments_count,
    }
  }
  return {
    ...facts,
    kind,
    serials: [row.imei, row.imei_2],
    status: row.status,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    canceledAt: row.canceled_at,
    premium: row.premium,
  }
}

/**
 * A policy number drawn from the contracts' one sequence, for a subscription that becomes `pago`
 * (an annual plan's is its id, taken from the same sequence at its insert): `AMP-<year of at>-<n>`.
 */
export async function nextPolicyNumber(trx: Trx, at: string, timeZone: string): Promise<string> {
  return policyNumber(await nextPolicySerial(trx), at, timeZone)
}
