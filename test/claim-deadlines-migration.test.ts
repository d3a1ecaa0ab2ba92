import { beforeAll, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate.js'
import type { ClaimStatus } from '../src/db/tables/claim.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { testClaimRow } from './helpers/claim-documents.js'
import { olderContracts, useDatabaseAt } from './helpers/world/older-schema.js'

// Migration 0032 starts the deadline of each stored claim past awaiting documents at its latest
// document's upload, or at its opening when it holds none; a claim awaiting documents has none
// (docs/decisions.md, Claim deadline).

const ctx = useDatabaseAt('0031-claims-desk-work')
const OPENED = '2026-11-21T12:00:00.000Z'
const ids: Record<string, number> = {}

beforeAll(async () => {
  const contracts = await olderContracts(ctx, OPENED)
  const claim = async (status: ClaimStatus, uploads: string[]) => {
    const subscriptionId = await contracts.subscription({
      status: 'pago',
      ends_on: '2027-11-21',
      updated_at: OPENED,
    })
    const subscription = await ctx.db
      .selectFrom('subscriptions')
      .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow()
    return retryingTransaction(ctx.db, async (trx) => {
      const { id } = await trx
        .insertInto('claims')
        .values({ ...testClaimRow(subscription, 'accidental_damage', status), partner_seq: subscriptionId })
        .returning('id')
        .executeTakeFirstOrThrow()
      for (const [n, uploadedAt] of uploads.entries())
        await trx
          .insertInto('claim_documents')
          .values({
            claim_id: id,
            kind: n === 0 ? 'photo' : 'invoice',
            filename: `doc-${n}.pdf`,
            content_type: 'application/pdf',
            size: 10,
            sha256: 'ab'.repeat(32),
            uploaded_at: uploadedAt,
            upload_id: `upload-${id}-${n}`,
          })
          .execute()
      return id
    })
  }
  ids.reviewed = await claim('under_review', ['2026-11-22T10:00:00.000Z', '2026-11-24T18:30:00.000Z'])
  ids.awaiting = await claim('documents_pending', ['2026-11-22T10:00:00.000Z'])
  ids.withoutDocuments = await claim('approved', [])
  await migrateToLatest(ctx.db)
})

it('starts each deadline at the latest upload, at the opening without documents, none while awaiting documents', async () => {
  const rows = await ctx.db
    .selectFrom('claims')
    .select(['id', 'deadline_started_at'])
    .where('id', 'in', Object.values(ids))
    .execute()
  const started = new Map(
    rows.map((r) => [r.id, r.deadline_started_at && new Date(r.deadline_started_at).toISOString()]),
  )
  expect(started.get(ids.reviewed as number)).toBe('2026-11-24T18:30:00.000Z')
  expect(started.get(ids.awaiting as number)).toBeNull()
  expect(started.get(ids.withoutDocuments as number)).toBe(OPENED)
})
