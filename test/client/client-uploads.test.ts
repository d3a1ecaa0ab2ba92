import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { type AmparoClient, AmparoError, createAmparoClient } from '../../clients/typescript/src/index.js'
import { type DemoPartner, loadDemo } from '../../src/demo/demo.js'
import { formatTimestamp } from '../../src/shared/time.js'
import { png } from '../helpers/claim-documents.js'
import { useTestApp } from '../helpers/test-app.js'

// Claim documents through @amparo/client's uploadClaimDocument, against the app listening on a
// real socket with the demo loaded (the README's claims walkthrough, by the client).

const ctx = useTestApp()
let amparo: AmparoClient
/** Uploads whose answer the network "loses" once: the server acted, the client sees a 503. */
let loseNextUploadAnswer = false
const uploads: { key: string | null; bytes: number }[] = []

const pdf = (text: string) => Buffer.from(`%PDF-1.4\n% ${text}\n%%EOF\n`)

beforeAll(async () => {
  const { partners } = await loadDemo(ctx.db, ctx.config, new Date().toISOString())
  await ctx.app.listen({ host: '127.0.0.1', port: 0 })
  const baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`
  const external = partners.find((p) => p.gateway === 'external') as DemoPartner
  amparo = createAmparoClient({
    baseUrl,
    clientId: external.client_id,
    clientSecret: external.client_secret,
    fetch: async (input, init) => {
      const upload = String(input).endsWith('/documents')
      if (upload) {
        const headers = new Headers(init?.headers)
        const body = init?.body as ArrayBuffer
        uploads.push({ key: headers.get('idempotency-key'), bytes: body.byteLength })
      }
      const response = await fetch(input, init)
      if (!upload || !loseNextUploadAnswer) return response
      loseNextUploadAnswer = false
      await response.body?.cancel()
      return new Response('{"message":"Service unavailable."}', {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
      })
    },
  })
})

/**
 * A theft claim on the demo's paid subscription (Ana Souza's), an hour ago. A contract has one
 * open claim at a time: an earlier test's is withdrawn first.
 */
async function openTheftClaim() {
  const { data: claims } = await amparo.GET('/claims')
  for (const open of claims.data.filter((c) => ['documents_pending', 'under_review'].includes(c.status)))
    await amparo.POST('/claims/{id}/withdraw', { params: { path: { id: open.id } } })
  const { data: paid } = await amparo.GET('/subscriptions', {
    params: { query: { 'filter[status]': 'pago' } },
  })
  const subscription = paid.data[0]
  if (!subscription) throw new Error('the demo has no paid subscription')
  const occurredAt = formatTimestamp(new Date(Date.now() - 3600_000).toISOString(), ctx.config.timeZone)
  const { data } = await amparo.POST('/claims', {
    body: {
      subscription_id: subscription.id,
      type: 'robbery',
      occurred_at: occurredAt,
      description: 'Celular roubado na saída do metrô.',
      police_report: { number: 'BO-2026-112233' },
    },
  })
  return data
}

describe('uploadClaimDocument', () => {
  it('sends a Buffer and a Blob as documents; the third required one puts the claim under review', async () => {
    const claim = await openTheftClaim()
    expect(claim.required_documents).toEqual(['police_report', 'imei_block', 'invoice'])

    const report = await amparo.uploadClaimDocument(claim.id, {
      kind: 'police_report',
      file: pdf('boletim'),
      filename: 'boletim.pdf',
    })
    expect(report).toMatchObject({
      kind: 'police_report',
      filename: 'boletim.pdf',
      content_type: 'application/pdf',
    })
    await amparo.uploadClaimDocument(claim.id, {
      kind: 'imei_block',
      file: new Blob([pdf('bloqueio')], { type: 'application/pdf' }),
      filename: 'bloqueio-imei.pdf',
    })
    const invoice = await amparo.uploadClaimDocument(claim.id, {
      kind: 'invoice',
      file: new File([pdf('nota')], 'nota-fiscal.pdf'),
    })
    expect(invoice.filename).toBe('nota-fiscal.pdf')

    const { data } = await amparo.GET('/claims/{id}', { params: { path: { id: claim.id } } })
    expect(data).toMatchObject({ status: 'under_review', required_documents: [] })
    expect(data.documents.map((d) => d.kind)).toEqual(['police_report', 'imei_block', 'invoice'])
  })

  it('sends an upload whose answer was lost again under its key: stored once', async () => {
    const claim = await openTheftClaim()
    const before = uploads.length
    loseNextUploadAnswer = true
    const photo = await amparo.uploadClaimDocument(claim.id, {
      kind: 'photo',
      file: png(),
      filename: 'tela.png',
    })
    expect(photo).toMatchObject({ kind: 'photo', content_type: 'image/png' })

    const sent = uploads.slice(before)
    expect(sent).toHaveLength(2)
    expect(sent[0]?.key).toMatch(/^[0-9a-f-]{36}$/)
    expect(sent[1]).toEqual(sent[0])
    const { data } = await amparo.GET('/claims/{id}', { params: { path: { id: claim.id } } })
    expect(data.documents.filter((d) => d.kind === 'photo')).toHaveLength(1)
  })

  it('throws AmparoError for a file that is not a document (415)', async () => {
    const claim = await openTheftClaim()
    const error = await amparo
      .uploadClaimDocument(claim.id, {
        kind: 'photo',
        file: Buffer.from('#!/bin/sh\necho hi\n'),
        filename: 'x.png',
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AmparoError)
    expect(error).toMatchObject({ status: 415 })
  })
})
