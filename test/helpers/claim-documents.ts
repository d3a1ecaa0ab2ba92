import { createHash } from 'node:crypto'
import { crc32, deflateSync } from 'node:zlib'
import type { Insertable } from 'kysely'
import type { Db } from '../../src/db/database.js'
import type { ClaimStatus, ClaimsTable } from '../../src/db/tables/claim.js'
import type { CoverageType } from '../../src/db/tables/plan.js'
import { retryingTransaction } from '../../src/db/transaction.js'
import { insertClaim } from '../../src/modules/claims/claim.repository.js'

// Real files made from bytes in the test (no fixture downloaded), multipart bodies, and claims.

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/** A valid 1×1 greyscale PNG (signature, IHDR, IDAT, IEND with their CRCs), `shade` its one pixel. */
export function png(shade = 0x80): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(1, 0)
  header.writeUInt32BE(1, 4)
  header.set([8, 0, 0, 0, 0], 8) // 8-bit greyscale, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from([0, shade]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** A JFIF JPEG's structure: start of image, the JFIF APP0 segment, a comment, end of image. */
export function jpeg(comment = 'amparo'): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0])
  const text = Buffer.from(comment, 'ascii')
  const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0, text.length + 2]), text])
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, com, Buffer.from([0xff, 0xd9])])
}

/** A one-page PDF with its cross-reference table, as a writer makes it. */
export function pdf(title = 'Boletim de Ocorrência'): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    `<< /Title (${title.replace(/[^\x20-\x7E]/g, '?')}) >>`,
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((object, i) => {
    offsets.push(body.length)
    body += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

export interface FormPart {
  name: string
  value: Buffer | string
  filename?: string
  contentType?: string
}

export const BOUNDARY = '----AmparoTestBoundary7MA4YWxkTrZu0gW'

/** A multipart/form-data body, and its headers, from `parts` in order. */
export function form(parts: FormPart[]): { payload: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = []
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`
    const type = part.contentType === undefined ? '' : `Content-Type: ${part.contentType}\r\n`
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`))
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value))
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`))
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  }
}

/** The usual upload form: `kind` then `file`. */
export function documentForm(
  kind: string,
  bytes: Buffer,
  filename = 'file.bin',
  contentType = 'application/octet-stream',
) {
  return form([
    { name: 'kind', value: kind },
    { name: 'file', value: bytes, filename, contentType },
  ])
}

let claimCount = 0

/** A claim of the subscription, in `status`, inserted as opening would leave it. */
export async function insertTestClaim(
  db: Db,
  subscription: TestClaimSubscription,
  type: CoverageType,
  status: ClaimStatus = 'documents_pending',
): Promise<number> {
  return retryingTransaction(db, (trx) => insertClaim(trx, testClaimRow(subscription, type, status)))
}

type TestClaimSubscription = {
  /** Null for a claim of an annual plan (its `annual_plan_id` among the overrides). */
  id: number | null
  partner_id: number
  plan_id: number
  customer_id: number
  model_id: number
}

/**
 * The row of such a claim, numbered anew, for a test that writes it itself (an older schema) or
 * through the repository; `overrides` replace its fields.
 */
export function testClaimRow(
  subscription: TestClaimSubscription,
  type: CoverageType,
  status: ClaimStatus = 'documents_pending',
  overrides: Partial<Insertable<ClaimsTable>> = {},
) {
  claimCount += 1
  const now = '2026-11-21T12:00:00.000Z'
  return {
    number: `SIN-2026-${String(900_000 + claimCount)}`,
    partner_id: subscription.partner_id,
    subscription_id: subscription.id,
    annual_plan_id: null,
    plan_id: subscription.plan_id,
    customer_id: subscription.customer_id,
    customer_document: '52998224725',
    model_id: subscription.model_id,
    serial_number: null,
    device_key: null,
    second_device_key: null,
    type,
    status,
    occurred_at: '2026-11-20T12:00:00.000Z',
    description: 'O aparelho foi levado na saída do metrô.',
    police_report_number: type === 'robbery' || type === 'qualified_theft' ? 'BO-2026-1' : null,
    police_report_issued_on: null,
    lmi: 899_900,
    franchise: 134_985,
    outcome: null,
    settlement_method: null,
    approved_amount: null,
    payable_amount: null,
    reason_code: null,
    note: null,
    decided_at: null,
    settlement_reference: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  } satisfies Insertable<ClaimsTable>
}
