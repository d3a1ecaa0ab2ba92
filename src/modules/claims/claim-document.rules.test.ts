import { describe, expect, it } from 'vitest'
import { attachmentDisposition } from '../../http/content-disposition.js'
import { requiredDocuments } from './claim.rules.js'
import {
  acceptsDocuments,
  documentLabel,
  documentLimitReached,
  isAcceptedContentType,
  statusAfterUpload,
} from './claim-document.rules.js'

describe('documentLabel', () => {
  it.each([
    ['foto.png', 'foto.png'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\maria\\nota fiscal.pdf', 'nota fiscal.pdf'],
    ['boletim\r\nX-Injected: 1.pdf', 'boletimX-Injected_ 1.pdf'],
    ['"quoted";name.jpg', '_quoted__name.jpg'],
    ['.hidden', 'hidden'],
    ['  espaços   demais .png ', 'espaços demais .png'],
    ['', 'document'],
    [undefined, 'document'],
    ['/', 'document'],
    ['\u202Egnp.exe', 'gnp.exe'],
  ])('%j → %j', (sent, label) => {
    expect(documentLabel(sent)).toBe(label)
  })

  it('keeps at most 100 characters, the extension included', () => {
    const label = documentLabel(`${'á'.repeat(300)}.jpeg`)
    expect([...label]).toHaveLength(100)
    expect(label.endsWith('á.jpeg')).toBe(true)
  })
})

describe('attachmentDisposition', () => {
  it.each([
    ['foto.png', `attachment; filename="foto.png"; filename*=UTF-8''foto.png`],
    [
      'nota fiscal ção.pdf',
      `attachment; filename="nota fiscal __o.pdf"; filename*=UTF-8''nota%20fiscal%20%C3%A7%C3%A3o.pdf`,
    ],
    [`it's (1)*.jpg`, `attachment; filename="it's (1)*.jpg"; filename*=UTF-8''it%27s%20%281%29%2A.jpg`],
  ])('%j', (name, header) => {
    expect(attachmentDisposition(name.normalize('NFC'))).toBe(header)
  })
})

describe('isAcceptedContentType', () => {
  it.each([
    ['image/jpeg', true],
    ['image/png', true],
    ['image/webp', true],
    ['image/heic', true],
    ['image/heif', true],
    ['application/pdf', true],
    ['image/gif', false],
    ['application/zip', false],
    [undefined, false],
  ])('%s → %s', (mime, accepted) => {
    expect(isAcceptedContentType(mime)).toBe(accepted)
  })
})

describe('uploads by status', () => {
  it.each([
    ['documents_pending', true],
    ['under_review', true],
    ['approved', false],
    ['denied', false],
    ['settled', false],
    ['withdrawn', false],
  ] as const)('%s → %s', (status, accepts) => {
    expect(acceptsDocuments(status)).toBe(accepts)
  })

  it('holds 30 documents at most', () => {
    expect(documentLimitReached(29)).toBe(false)
    expect(documentLimitReached(30)).toBe(true)
  })
})

describe('statusAfterUpload', () => {
  it.each([
    ['robbery', 'documents_pending', ['police_report', 'imei_block'], null],
    ['robbery', 'documents_pending', ['police_report', 'imei_block', 'invoice'], 'under_review'],
    [
      'qualified_theft',
      'documents_pending',
      ['invoice', 'imei_block', 'photo', 'police_report'],
      'under_review',
    ],
    ['accidental_damage', 'documents_pending', ['photo'], null],
    ['accidental_damage', 'documents_pending', ['photo', 'invoice'], 'under_review'],
    ['liquid_damage', 'documents_pending', ['invoice', 'photo', 'other'], 'under_review'],
    ['liquid_damage', 'under_review', ['invoice', 'photo', 'other'], null],
  ] as const)('%s %s with %j → %s', (type, status, kinds, next) => {
    const documents = kinds.map((kind, i) => ({ id: i + 1, kind }))
    expect(statusAfterUpload(status, requiredDocuments(type, documents, null))).toBe(next)
  })
})
