import type { Db } from '../../db/database.js'
import { ANNUAL_PLAN_STATUS_LABELS, SUBSCRIPTION_STATUS_LABELS } from '../../shared/labels.js'
import { statusAt as annualPlanStatusAt } from '../annual-plans/annual-plan.rules.js'
import {
  contractsOfCustomers,
  customerIdsMatching,
  customersWithDocuments,
  documentsOfCustomers,
} from './search.repository.js'
import { maskDocument, searchKeys } from './search.rules.js'

// GET /api/search (README, Operator console: the operator API behind the screens): whatever names a customer or a contract →
// the person (one CPF/CNPJ, a customer under each partner) with every contract under every partner.

export async function search(db: Db, q: string, now: string) {
  const keys = searchKeys(q)
  const ids = await customerIdsMatching(db, keys)
  const documents = [
    ...new Set([...(keys.document ? [keys.document] : []), ...(await documentsOfCustomers(db, ids))]),
  ]
  const customers = await customersWithDocuments(db, documents)
  const { subscriptions, annualPlans } = await contractsOfCustomers(
    db,
    customers.map((c) => c.id),
  )
  const documentOf = new Map(customers.map((c) => [c.id, c.document]))
  const contracts = [
    ...subscriptions.map((s) => ({
      document: documentOf.get(s.customer_id),
      contract: {
        kind: 'subscription' as const,
        id: s.id,
        policy_number: s.policy_number,
        partner: { id: s.partner_id, name: s.partner_name },
        customer_id: s.customer_id,
        plan_name: s.plan_name,
        status: s.status,
        status_label: SUBSCRIPTION_STATUS_LABELS[s.status],
        device: { model: { id: s.model_id, name: s.model_name }, serial_number: s.serial_number },
        contracted_at: new Date(s.created_at).toISOString(),
      },
    })),
    ...annualPlans.map((a) => {
      const status = annualPlanStatusAt(
        { status: a.status, starts_at: iso(a.starts_at), ends_at: iso(a.ends_at) },
        now,
      )
      return {
        document: documentOf.get(a.customer_id),
        contract: {
          kind: 'annual_plan' as const,
          id: a.id,
          policy_number: a.policy_number,
          partner: { id: a.partner_id, name: a.partner_name },
          customer_id: a.customer_id,
          plan_name: a.plan_name,
          status,
          status_label: ANNUAL_PLAN_STATUS_LABELS[status],
          device: { model: { id: a.model_id, name: a.model_name }, serial_number: a.imei },
          contracted_at: new Date(a.created_at).toISOString(),
        },
      }
    }),
  ]
  return {
    customers: documents
      .map((document) => {
        const mine = customers.filter((c) => c.document === document)
        const first = mine[0]
        return {
          name: first?.name ?? '',
          document_masked: maskDocument(document),
          document_kind: first?.document_kind ?? (document.length === 11 ? 'cpf' : 'cnpj'),
          customers: mine.map((c) => ({
            id: c.id,
            name: c.name,
            partner: { id: c.partner_id, name: c.partner_name },
          })),
          contracts: contracts
            .filter((c) => c.document === document)
            .map((c) => c.contract)
            .sort((a, b) => a.contracted_at.localeCompare(b.contracted_at)),
        }
      })
      .filter((person) => person.customers.length > 0),
  }
}

const iso = (instant: string | null) => (instant === null ? null : new Date(instant).toISOString())
