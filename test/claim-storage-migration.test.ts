import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { pdf, png, sha256, testClaimRow } from './helpers/claim-documents.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { olderCustomer, useDatabaseAt } from './helpers/world/older-schema.js'
import { bearer, partnerWithToken, seedCatalog, seedPlan, TOTAL_12X } from './helpers/world.js'

// Migration 0021 cuts the documents a database already holds, one row of bytes each, into chunks
// (docs/decisions.md, Claims: document storage), and 0024 keys those chunks by an upload named in
// the document's row: each is served byte-identical after them, and `down` joins them back. 0021
// also numbers each partner's claims for the list's pages.

const ctx = useDatabaseAt('0020-partial-indexes')
const KIB = 1024
const files: Record<string, Buffer> = {
  small: png(),
  // Exactly two chunks, and two chunks and a piece.
  twoChunks: Buffer.concat([pdf(), randomBytes(512 * KIB - pdf().length)]),
  longer: Buffer.concat([pdf(), randomBytes(600 * KIB + 7)]),
}
const ids: Record<string, number> = {}
let app: App
let token: string
let claimId: number
const claimIds: number[] = []

beforeAll(async () => {
  app = await buildCheckedApp({ config: ctx.config, db: ctx.db, logger: false })
  const catalog = await seedCatalog(ctx.db)
  const mine = await partnerWithToken(app, ctx.db)
  token = mine.token
  const plan = await seedPlan(ctx.db, mine.partner.id, TOTAL_12X)
  // A row of the older schema: the live service also writes tables later migrations make.
  const customer = { id: await olderCustomer(ctx.db, mine.partner.id, new Date().toISOString()) }
  const contracted = await app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(token),
    payload: { plan_id: plan.id, customer_id: customer.id, model_id: catalog.model('iPhone 16 Pro').id },
  })
  expect(contracted.statusCode, contracted.body).toBe(201)
  const subscription = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
    .where('id', '=', contracted.json().id)
    .executeTakeFirstOrThrow()
  // Rows of the older schema (no number in the partner's list yet); the first one gets the documents.
  for (const status of ['documents_pending', 'under_review', 'withdrawn'] as const) {
    const row = await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('claims')
        .values(testClaimRow(subscription, 'accidental_damage', status))
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
    claimIds.push(row.id)
  }
  claimId = claimIds[0] as number
  // Stored as 0015 stored them: the metadata, and the whole file in one row.
  // biome-ignore lint/suspicious/noExplicitAny: a table of the older schema
  const older = ctx.db as any
  for (const [name, bytes] of Object.entries(files)) {
    const row = await older
      .insertInto('claim_documents')
      .values({
        claim_id: claimId,
        kind: 'other',
        filename: `${name}.bin`,
        content_type: name === 'small' ? 'image/png' : 'application/pdf',
        size: bytes.length,
        sha256: sha256(bytes),
        uploaded_at: '2026-11-21T12:00:00.000Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    ids[name] = row.id
    await older.insertInto('claim_document_contents').values({ document_id: row.id, bytes }).execute()
  }
  expect(await migrateToLatest(ctx.db)).toEqual(
    expect.arrayContaining(['0021-claim-storage', '0024-document-uploads']),
  )
}, 120_000)
afterAll(() => app?.close())

const download = (documentId: number | undefined) =>
  app.inject({ method: 'GET', url: `/claims/${claimId}/documents/${documentId}`, headers: bearer(token) })

it('serves each document stored before it byte-identical, with its type and length', async () => {
  for (const [name, bytes] of Object.entries(files)) {
    const response = await download(ids[name])
    expect(response.statusCode, name).toBe(200)
    expect(response.headers['content-type'], name).toBe(name === 'small' ? 'image/png' : 'application/pdf')
    expect(response.headers['content-length'], name).toBe(String(bytes.length))
    expect(sha256(response.rawPayload), name).toBe(sha256(bytes))
  }
})

it('cuts them into chunks of 256 KiB, in order, each document under an upload of its own (0024)', async () => {
  const chunks = await ctx.db
    .selectFrom('claim_document_chunks')
    .innerJoin('claim_documents', 'claim_documents.upload_id', 'claim_document_chunks.upload_id')
    .select(['claim_documents.id as document_id', 'chunk', 'bytes'])
    .orderBy('claim_documents.id')
    .orderBy('chunk')
    .execute()
  const uploads = await ctx.db.selectFrom('claim_documents').select('upload_id').distinct().execute()
  expect(uploads).toHaveLength(Object.keys(files).length)
  const sizes = (id: number | undefined) =>
    chunks.filter((c) => c.document_id === id).map((c) => [c.chunk, c.bytes.length])
  expect(sizes(ids.small)).toEqual([[0, files.small?.length]])
  expect(sizes(ids.twoChunks)).toEqual([
    [0, 256 * KIB],
    [1, 256 * KIB],
  ])
  expect(sizes(ids.longer)).toEqual([
    [0, 256 * KIB],
    [1, 256 * KIB],
    [2, (files.longer?.length ?? 0) - 512 * KIB],
  ])
})

it("numbers the partner's claims in id order and lists them by those numbers, newest first", async () => {
  const numbered = await ctx.db.selectFrom('claims').select(['id', 'partner_seq']).orderBy('id').execute()
  expect(numbered).toEqual(claimIds.map((id, i) => ({ id, partner_seq: i + 1 })))
  const pageOf = async (page: number) => {
    const response = await app.inject({
      method: 'GET',
      url: `/claims?page=${page}&per_page=2`,
      headers: bearer(token),
    })
    expect(response.statusCode, response.body).toBe(200)
    return response.json()
  }
  const [first, second] = [await pageOf(1), await pageOf(2)]
  expect(first.data.map((c: { id: number }) => c.id)).toEqual([claimIds[2], claimIds[1]])
  expect(second.data.map((c: { id: number }) => c.id)).toEqual([claimIds[0]])
  expect(second.data[0].documents).toHaveLength(Object.keys(files).length)
  expect(first.meta.total).toBe(3)
})

it('joins the chunks back into one row each when reverted (0024, then 0021), then cuts them again', async () => {
  await migrateTo(ctx.db, '0020-partial-indexes')
  // biome-ignore lint/suspicious/noExplicitAny: a table of the older schema
  const rows: { document_id: number; bytes: Buffer }[] = await (ctx.db as any)
    .selectFrom('claim_document_contents')
    .select(['document_id', 'bytes'])
    .execute()
  expect(Object.fromEntries(rows.map((r) => [r.document_id, sha256(r.bytes)]))).toEqual(
    Object.fromEntries(Object.entries(files).map(([name, bytes]) => [ids[name], sha256(bytes)])),
  )
  await migrateToLatest(ctx.db)
  expect(sha256((await download(ids.longer)).rawPayload)).toBe(sha256(files.longer as Buffer))
})
