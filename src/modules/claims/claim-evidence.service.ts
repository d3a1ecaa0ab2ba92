import type { Reader } from '../../db/database.js'
import type { ClaimStatus, DocumentKind, FraudSignal } from '../../db/tables/claim.js'
import { claimStatusLabel, fraudWindowsOf } from './claim.rules.js'
import { findInstallmentFacts, findLastCardChange } from './claim-contract.repository.js'
import {
  annualPlanStart,
  claimRefs,
  customerClaimIdsBefore,
  deviceClaimIdsBefore,
  reusedDocuments,
} from './claim-evidence.repository.js'

// The evidence of a claim's fraud signals (operators only; docs/decisions.md, Fraud evidence): each
// signal read again by the rule that raised it, among the claims that existed when it was raised
// (lower ids), in the windows measured from the claim's opening.

/** What the evidence reads of the claim. */
export interface EvidenceSubject {
  id: number
  created_at: string
  occurred_at: string
  subscription_id: number | null
  annual_plan_id: number | null
  customer_document: string
  device_key: string | null
  second_device_key: string | null
  fraud_signals: string
}

/** Another claim a signal points at, any partner's. */
export interface EvidenceClaim {
  id: number
  number: string
  status: ClaimStatus
  status_label: string
  partner: { id: number; name: string }
  contract: { kind: 'subscription' | 'annual_plan'; id: number; policy_number: string | null }
  customer_name: string
  opened_at: string
  /** reused_document: the other claim's document with the same bytes, and this claim's copy. */
  document: { id: number; kind: DocumentKind; filename: string; own_id: number; own_filename: string } | null
}

export interface SignalEvidence {
  signal: FraudSignal
  claims: EvidenceClaim[]
  /** recent_card_change: when the card was replaced. */
  card_changed_at: string | null
  /** early_claim: when the contract's cover started. */
  coverage_started_at: string | null
}

const iso = (instant: string | Date | null | undefined) =>
  instant == null ? null : new Date(instant).toISOString()

/** For each of the claim's fraud signals, in their order, what raised it. */
export async function fraudEvidence(db: Reader, claim: EvidenceSubject): Promise<SignalEvidence[]> {
  const signals = JSON.parse(claim.fraud_signals) as FraudSignal[]
  if (signals.length === 0) return []
  const found = await Promise.all(signals.map((signal) => evidenceOf(db, claim, signal)))
  const refs = new Map(
    (await claimRefs(db, [...new Set(found.flatMap((f) => f.claims.map((c) => c.claimId)))])).map((r) => [
      r.id,
      r,
    ]),
  )
  return found.map(({ signal, claims, cardChangedAt, coverageStartedAt }) => ({
    signal,
    claims: claims.flatMap(({ claimId, document }) => {
      const ref = refs.get(claimId)
      if (!ref) return []
      const kind = ref.subscription_id !== null ? 'subscription' : 'annual_plan'
      return [
        {
          id: ref.id,
          number: ref.number,
          status: ref.status,
          status_label: claimStatusLabel(ref.status),
          partner: { id: ref.partner_id, name: ref.partner_name },
          contract: {
            kind,
            id: (ref.subscription_id ?? ref.annual_plan_id) as number,
            policy_number:
              kind === 'subscription' ? ref.subscription_policy_number : ref.annual_plan_policy_number,
          },
          customer_name: ref.customer_name,
          opened_at: iso(ref.created_at) as string,
          document,
        } satisfies EvidenceClaim,
      ]
    }),
    card_changed_at: cardChangedAt,
    coverage_started_at: coverageStartedAt,
  }))
}

interface Found {
  signal: FraudSignal
  claims: { claimId: number; document: EvidenceClaim['document'] }[]
  cardChangedAt: string | null
  coverageStartedAt: string | null
}

async function evidenceOf(db: Reader, claim: EvidenceSubject, signal: FraudSignal): Promise<Found> {
  const found: Found = { signal, claims: [], cardChangedAt: null, coverageStartedAt: null }
  const byId = (ids: number[]) => ids.map((claimId) => ({ claimId, document: null }))
  const windows = fraudWindowsOf(iso(claim.created_at) as string)
  switch (signal) {
    case 'early_claim':
      found.coverageStartedAt = await coverageStart(db, claim)
      break
    case 'repeat_device': {
      const keys = [claim.device_key, claim.second_device_key].filter((k): k is string => !!k)
      found.claims = byId(await deviceClaimIdsBefore(db, keys, windows.deviceSince, claim.id))
      break
    }
    case 'repeat_customer':
      found.claims = byId(
        await customerClaimIdsBefore(db, claim.customer_document, windows.customerSince, claim.id),
      )
      break
    case 'recent_card_change':
      if (claim.subscription_id !== null) {
        found.cardChangedAt = iso(
          await findLastCardChange(db, claim.subscription_id, iso(claim.occurred_at) as string),
        )
      }
      break
    case 'reused_document':
      found.claims = (await reusedDocuments(db, claim.id, claim.customer_document)).map((d) => ({
        claimId: d.claim_id,
        document: {
          id: d.id,
          kind: d.kind,
          filename: d.filename,
          own_id: d.own_id,
          own_filename: d.own_filename,
        },
      }))
      break
  }
  return found
}

/** When the contract's cover started: installment 1's payment, or the annual plan's start. */
async function coverageStart(db: Reader, claim: EvidenceSubject): Promise<string | null> {
  if (claim.subscription_id !== null) {
    const installments = await findInstallmentFacts(db, claim.subscription_id)
    const first = installments.find((i) => i.number === 1)
    return first?.status === 'paid' ? iso(first.paid_at) : null
  }
  return iso(await annualPlanStart(db, claim.annual_plan_id as number))
}
