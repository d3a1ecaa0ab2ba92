import { normalizeDocument } from '../../shared/documents.js'
import { nameWords } from '../../shared/text.js'
import { deviceKey } from '../devices/device.rules.js'

// What the operator's search box was given (README, Operator console: the operator API behind the screens), read without the
// database: each kind of key it may be, so every lookup that could match is tried.

export interface SearchKeys {
  /** CPF or CNPJ, bare (check digits valid). */
  document: string | null
  /** `SIN-2026-000001`. */
  claimNumber: string | null
  /** `AMP-2026-000042`. */
  policyNumber: string | null
  /** A subscription or annual plan id. */
  id: number | null
  /** The text as typed and bare (letters and digits, uppercase), as serials and IMEIs are stored. */
  serials: string[]
  /** Its device key, as protections and claims compare devices (docs/decisions.md, Devices). */
  deviceKey: string | null
  /**
   * Prefixes of a customer's name's words (docs/decisions.md, "Search by name"): each word typed
   * of 3 or more characters, plain; a name matches when each is the start of one of its words.
   */
  namePrefixes: string[]
}

/** The shortest word prefix the search by name looks up: shorter ones match too many people. */
export const MIN_NAME_PREFIX = 3

const MAX_ID = 2_147_483_647

export function searchKeys(q: string): SearchKeys {
  const text = q.trim()
  const upper = text.toUpperCase()
  const numeric = /^\d{1,10}$/.test(text) ? Number(text) : null
  const bare = text
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .toUpperCase()
  const key = deviceKey(text)
  const document = normalizeDocument(text)?.value ?? null
  const claimNumber = /^SIN-\d{4}-\d{6,}$/.test(upper) ? upper : null
  const policyNumber = /^AMP-\d{4}-\d{6,}$/.test(upper) ? upper : null
  const named = document === null && claimNumber === null && policyNumber === null && /\p{L}/u.test(text)
  return {
    document,
    claimNumber,
    policyNumber,
    id: numeric !== null && numeric >= 1 && numeric <= MAX_ID ? numeric : null,
    serials: text.length < 4 ? [] : [...new Set([text, bare].filter((s) => s.length >= 4))],
    deviceKey: text.length < 4 || key.length < 4 ? null : key,
    namePrefixes: named ? nameWords(text).filter((word) => word.length >= MIN_NAME_PREFIX) : [],
  }
}

/** A CPF or CNPJ with its middle hidden (`529.***.***-25`; a CNPJ keeps its first 2 and last 2 digits). */
export function maskDocument(document: string): string {
  if (document.length === 11) return `${document.slice(0, 3)}.***.***-${document.slice(9)}`
  if (document.length === 14) return `${document.slice(0, 2)}.***.***/****-${document.slice(12)}`
  return '*'.repeat(Math.max(0, document.length - 2)) + document.slice(-2)
}
