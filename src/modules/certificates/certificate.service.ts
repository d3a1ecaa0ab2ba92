import type { Db } from '../../db/database.js'
import { NotFoundError, StateError } from '../../shared/errors.js'
import { labelOf, PAID_WITH_LABELS, PERIL_LABELS } from '../../shared/labels.js'
import { type Clock, formatTimestamp, shiftedClock } from '../../shared/time.js'
import { type CertificateContent, renderCertificatePdf } from './certificate.pdf.js'
import {
  type AnnualPlanCertificateRow,
  findAnnualPlanCertificate,
  findByCertificateCode,
  findSubscriptionCertificate,
  type SubscriptionCertificateRow,
} from './certificate.repository.js'
import {
  annualPlanStatus,
  formatDateBr,
  formatReais,
  inForce,
  maskDocument,
  normalizeVerificationCode,
  subscriptionStatus,
  subscriptionTerm,
} from './certificate.rules.js'

/** When and where a certificate is issued: the partner's clock, the zone, the public address. */
export interface IssueContext {
  now: string
  timeZone: string
  base: string
}

/** Why a certificate is refused (422 `invalid_state`), after the contract's status. */
export const NOT_IN_FORCE =
  'A certificate is issued only for a contract in force: a subscription `pago`, an annual plan `paid` or `protected`.'

/** The certificate of the partner's subscription, a PDF; 404 when not theirs, 422 when not in force. */
export async function subscriptionCertificate(
  db: Db,
  partnerId: number,
  id: number,
  context: IssueContext,
): Promise<Buffer> {
  const row = await findSubscriptionCertificate(db, partnerId, id)
  if (!row) throw new NotFoundError('Subscription')
  const status = subscriptionStatus(row, context.now, context.timeZone)
  if (!inForce(status) || !row.policy_number || !row.certificate_code) {
    throw new StateError(`The subscription is ${status}. ${NOT_IN_FORCE}`)
  }
  return renderCertificatePdf(subscriptionContent(row, row.policy_number, row.certificate_code, context))
}

/** The certificate of the partner's annual plan, a PDF; 404 when not theirs, 422 when not in force. */
export async function annualPlanCertificate(
  db: Db,
  partnerId: number,
  id: number,
  context: IssueContext,
): Promise<Buffer> {
  const row = await findAnnualPlanCertificate(db, partnerId, id)
  if (!row) throw new NotFoundError('Annual plan')
  const status = annualPlanStatus(row, context.now)
  if (!inForce(status) || !row.policy_number || !row.certificate_code) {
    throw new StateError(`The annual plan is ${status.replace('_', ' ')}. ${NOT_IN_FORCE}`)
  }
  return renderCertificatePdf(annualPlanContent(row, row.policy_number, row.certificate_code, context))
}

/**
 * What `GET /certificates/{code}` answers: the number, the contract's status and its term, never
 * who is insured nor what. Null for a code that names no contract.
 */
export async function verifyCertificate(
  db: Db,
  input: string,
  { clock, sandboxClocks, timeZone }: { clock: Clock; sandboxClocks: boolean; timeZone: string },
) {
  const code = normalizeVerificationCode(input)
  const contract = code === null ? undefined : await findByCertificateCode(db, code)
  if (!contract?.policy_number) return null
  // Read at the contract's partner's time, as every read of its resources is (its sandbox clock
  // in test; production never reads an offset).
  const offset = sandboxClocks ? contract.clock_offset_seconds : 0
  const now = shiftedClock(clock, offset).now().toISOString()
  const { status, startsAt, endsAt } =
    contract.kind === 'subscription'
      ? {
          status: subscriptionStatus(contract, now, timeZone),
          ...subscriptionTerm(contract.first_paid_at, contract.ends_on, timeZone),
        }
      : { status: annualPlanStatus(contract, now), startsAt: contract.starts_at, endsAt: contract.ends_at }
  return {
    valid: inForce(status),
    number: contract.policy_number,
    status,
    ...(startsAt && { starts_at: formatTimestamp(startsAt, timeZone) }),
    ...(endsAt && { ends_at: formatTimestamp(endsAt, timeZone) }),
  }
}

type CommonRow = SubscriptionCertificateRow | AnnualPlanCertificateRow

function commonContent(
  row: CommonRow,
  policyNumber: string,
  code: string,
  { now, timeZone, base }: IssueContext,
) {
  // The perils by their one label (the claims' `type_label`); a plan that names none keeps its own words.
  const perils = JSON.parse(row.coverage_types) as string[]
  const names =
    perils.length > 0
      ? perils.map((type) => labelOf(PERIL_LABELS, type))
      : (JSON.parse(row.coverages) as string[])
  const coverages = names.map((name) => ({ name, lmi: formatReais(row.lmi) }))
  const store = row.store_name
    ? [row.store_name, row.store_document && `CNPJ ${formatCnpj(row.store_document)}`, place(row)]
        .filter(Boolean)
        .join(' · ')
    : 'Venda direta do parceiro'
  return {
    title: 'Certificado de Seguro',
    policyNumber,
    planName: row.plan_name,
    insured: {
      name: row.customer_name,
      document: `${row.customer_document_kind.toUpperCase()} ${maskDocument(row.customer_document, row.customer_document_kind)}`,
    },
    coverages,
    franchise: row.franchise > 0 ? `${formatReais(row.franchise)} por sinistro` : 'Sem franquia',
    paidWith: row.paid_with && labelOf(PAID_WITH_LABELS, row.paid_with),
    partner: row.partner_name,
    store,
    claimSteps: [
      `Comunique o sinistro à ${row.partner_name} em até ${row.claim_notice_days} dias da ocorrência, informando o número da apólice ${policyNumber}.`,
      'Em caso de roubo ou furto, registre o boletim de ocorrência e bloqueie o IMEI junto à operadora.',
      'Envie os documentos pedidos (boletim de ocorrência, nota fiscal, fotos do aparelho); a análise é informada pelo parceiro.',
      `A indenização é limitada ao LMI de cada cobertura, descontada a franquia.`,
    ],
    issuedOn: formatDateBr(now, timeZone),
    verification: { code, url: `${base}/certificates/${code}` },
  }
}

function subscriptionContent(
  row: SubscriptionCertificateRow,
  policyNumber: string,
  code: string,
  context: IssueContext,
): CertificateContent {
  const { startsAt, endsAt } = subscriptionTerm(row.first_paid_at, row.ends_on, context.timeZone)
  const from = startsAt ? formatDateBr(startsAt, context.timeZone) : '—'
  return {
    ...commonContent(row, policyNumber, code, context),
    contract: `Assinatura nº ${row.id}`,
    device: {
      model: `${row.brand_name} ${row.model_name}`,
      serials: serials([row.serial_number, row.second_serial_number]),
    },
    term: `de ${from} até ${formatDateBr(endsAt, context.timeZone)} (00h00), mensal enquanto as parcelas estiverem em dia`,
    payment: `${row.installments_count} parcelas mensais de ${formatReais(row.monthly_premium)}`,
    premium: `${formatReais(row.monthly_premium * row.installments_count)} no total (${formatReais(row.monthly_premium)} por mês)`,
  }
}

function annualPlanContent(
  row: AnnualPlanCertificateRow,
  policyNumber: string,
  code: string,
  context: IssueContext,
): CertificateContent {
  const { timeZone } = context
  const from = row.starts_at ? formatDateBr(row.starts_at, timeZone) : '—'
  const to = row.ends_at ? formatDateBr(row.ends_at, timeZone) : '—'
  const installments = row.payment_installments ?? 1
  return {
    ...commonContent(row, policyNumber, code, context),
    contract: `Plano anual nº ${row.id}`,
    device: { model: `${row.brand_name} ${row.model_name}`, serials: serials([row.imei, row.imei_2]) },
    term: `12 meses, de ${from} (00h00) até ${to} (00h00)`,
    payment: installments > 1 ? `em ${installments} parcelas` : 'à vista',
    premium: formatReais(row.premium),
  }
}

/** IMEIs (15 digits) are labelled so; anything else is the device's serial number. */
function serials(values: (string | null)[]) {
  const present = values.filter((value): value is string => Boolean(value))
  if (present.length === 0) return [{ label: 'IMEI / número de série', value: 'a informar' }]
  return present.map((value, index) => ({
    label: `${/^\d{15}$/.test(value) ? 'IMEI' : 'Número de série'}${present.length > 1 ? ` ${index + 1}` : ''}`,
    value,
  }))
}

function formatCnpj(value: string): string {
  return value.length === 14
    ? `${value.slice(0, 2)}.${value.slice(2, 5)}.${value.slice(5, 8)}/${value.slice(8, 12)}-${value.slice(12)}`
    : value
}

function place(row: CommonRow): string | null {
  return row.store_city ? `${row.store_city}${row.store_state ? `/${row.store_state}` : ''}` : null
}
