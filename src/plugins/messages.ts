import type { ConsoleErrorCode, ErrorCode, FieldErrors } from '../shared/errors.js'
import { LABEL_TABLES } from '../shared/labels.js'
import { CODE_MESSAGES } from './code-messages.js'
import { SERVICE_MESSAGES } from './service-messages.js'

// The error messages in Portuguese (README, Using the API: errors in Portuguese). Errors are built
// in English where they happen; the error body is translated here, once, when the request asked
// for Portuguese (Accept-Language): a code's own message from the catalogue (code-messages.ts),
// the validation messages by their forms. Codes and field keys never change.

export type Language = 'en' | 'pt-BR'

/**
 * The language of the answer: Portuguese when the client's Accept-Language prefers `pt` (any
 * region) to English, q-values honoured; English otherwise (absent, `*`, another language).
 */
export function languageOf(acceptLanguage: string | string[] | undefined): Language {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : (acceptLanguage ?? '')
  let best: { language: Language; q: number } | null = null
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().split(';')
    const primary = range.trim().toLowerCase().split('-')[0]
    const qParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q) || q <= 0) continue
    const language = primary === 'pt' ? 'pt-BR' : primary === 'en' || primary === '*' ? 'en' : null
    if (language && (!best || q > best.q)) best = { language, q }
  }
  return best?.language ?? 'en'
}

type Rule = [RegExp, (...groups: string[]) => string]

// What follows "The <field> field" in the validation messages (http/validation.ts).
const PREDICATES: Rule[] = [
  [/^is required\.$/, () => 'é obrigatório.'],
  [/^must be an integer\.$/, () => 'deve ser um número inteiro.'],
  [/^must be a number\.$/, () => 'deve ser um número.'],
  [/^must be true or false\.$/, () => 'deve ser true ou false.'],
  [/^must be an array\.$/, () => 'deve ser uma lista.'],
  [/^must be an object\.$/, () => 'deve ser um objeto.'],
  [/^must be a string\.$/, () => 'deve ser um texto.'],
  [/^must be of type (.+)\.$/, (t) => `deve ser do tipo ${t}.`],
  [/^must be at least (\S+) characters\.$/, (n) => `deve ter no mínimo ${n} caracteres.`],
  [/^must not be greater than (\S+) characters\.$/, (n) => `não pode ter mais de ${n} caracteres.`],
  [/^must be at least (\S+)\.$/, (n) => `deve ser no mínimo ${n}.`],
  [/^must not be greater than (\S+)\.$/, (n) => `não pode ser maior que ${n}.`],
  [/^must have at least (\S+) items\.$/, (n) => `deve ter no mínimo ${n} itens.`],
  [/^must not have more than (\S+) items\.$/, (n) => `não pode ter mais de ${n} itens.`],
  [/^must not have more than (\S+) entries\.$/, (n) => `não pode ter mais de ${n} entradas.`],
  [/^must be a valid email address\.$/, () => 'deve ser um endereço de e-mail válido.'],
  [/^must be a valid CPF or CNPJ\.$/, () => 'deve ser um CPF ou CNPJ válido.'],
  [/^must be a valid (CPF|CNPJ)\.$/, (d) => `deve ser um ${d} válido.`],
  [/^must be exactly 8 digits\.$/, () => 'deve ter exatamente 8 dígitos.'],
  [/^must be a Brazilian state code\.$/, () => 'deve ser a sigla de um estado brasileiro.'],
  [/^must be a phone number with area code\.$/, () => 'deve ser um telefone com DDD.'],
  [
    /^must be a valid IMEI: 15 digits, the last one a check digit \(Luhn\)\.$/,
    () => 'deve ser um IMEI válido: 15 dígitos, o último um dígito verificador (Luhn).',
  ],
  [/^format is invalid\.$/, () => 'tem formato inválido.'],
  [/^is prohibited\.$/, () => 'não é permitido.'],
  [/^must not contain control characters\.$/, () => 'não pode conter caracteres de controle.'],
  [
    /^must be valid Unicode text \(an unpaired surrogate was sent\)\.$/,
    () => 'deve ser um texto Unicode válido (foi enviado um surrogate sem par).',
  ],
  [
    /^must not contain bidirectional control characters\.$/,
    () => 'não pode conter caracteres de controle bidirecionais.',
  ],
  [/^is invalid\.$/, () => 'é inválido.'],
]

const RESOURCES: Record<string, string> = {
  Resource: 'Recurso',
  Subscription: 'Assinatura',
  'Annual plan': 'Plano anual',
  Customer: 'Cliente',
  Plan: 'Plano',
  Model: 'Modelo',
  Brand: 'Marca',
  Installment: 'Parcela',
  Claim: 'Sinistro',
  Document: 'Documento',
  Event: 'Evento',
  'Webhook endpoint': 'Endpoint de webhook',
  Shopkeeper: 'Loja',
  Store: 'Loja',
  Certificate: 'Certificado',
  'Client package': 'Pacote do cliente',
  Partner: 'Parceiro',
  Credential: 'Credencial',
  Refund: 'Reembolso',
  Cancellation: 'Cancelamento',
}
const FEMININE = new Set(['Assinatura', 'Marca', 'Parcela', 'Loja', 'Credencial'])

const MESSAGES: Rule[] = [
  [
    /^The (.+) field (.+)$/,
    (field, predicate) => `O campo ${field} ${translateWith(PREDICATES, predicate ?? '') ?? 'é inválido.'}`,
  ],
  [/^The selected (.+) is invalid\.$/, (field) => `O valor selecionado para ${field} é inválido.`],
  [/^The (.+) has already been taken\.$/, (field) => `O valor de ${field} já está em uso.`],
  [
    /^The (.+) must be a valid email address\.$/,
    (field) => `O ${field} deve ser um endereço de e-mail válido.`,
  ],
  [/^The (.+) must be a valid (CPF|CNPJ)\.$/, (field, kind) => `O ${field} deve ser um ${kind} válido.`],
  [/^The subscription is canceled\.$/, () => 'A assinatura está cancelada.'],
  [/^The subscription is already canceled\.$/, () => 'A assinatura já está cancelada.'],
  [/^Installment 1 can no longer be paid\.$/, () => 'A parcela 1 não pode mais ser paga.'],
  [/^The subscription has expired: (.+)$/, () => 'A assinatura expirou: a operação não é mais possível.'],
  [
    /^The subscription changed while being updated: try again\.$/,
    () => 'A assinatura mudou durante a atualização: tente de novo.',
  ],
  [/^Route (\S+) (.+) not found\.$/, (method, path) => `Rota ${method} ${path} não encontrada.`],
  [
    /^(.+) not found\.$/,
    (what = '') => {
      const name = RESOURCES[what]
      if (!name) return CODE_MESSAGES.not_found.pt
      return `${name} não encontrad${FEMININE.has(name) ? 'a' : 'o'}.`
    },
  ],
  [
    /^Too many requests\. Retry in (\d+) seconds?\.$/,
    (n) => `Requisições demais. Tente de novo em ${n} segundos.`,
  ],
  [/^Too many requests\. Retry in (.+)\.$/, (after) => `Requisições demais. Tente de novo em ${after}.`],
  [
    /^The request body must not be larger than (.+)\.$/,
    (size) => `O corpo da requisição não pode ter mais de ${size}.`,
  ],
  [/^The file must not be larger than (.+)\.$/, (size) => `O arquivo não pode ter mais de ${size}.`],
  [/^The request body did not arrive within (.+)\.$/, (t) => `O corpo da requisição não chegou em ${t}.`],
  [
    /^The request body is not valid JSON: it is not UTF-8\.$/,
    () => 'O corpo da requisição não é um JSON válido: não está em UTF-8.',
  ],
  [
    /^The request body ended before it was complete\.$/,
    () => 'O corpo da requisição terminou antes de estar completo.',
  ],
  [
    /^The multipart body is malformed or ended before it was complete\.$/,
    () => 'O corpo multipart está malformado ou terminou antes de estar completo.',
  ],
  [/^The form has too many parts or fields\.$/, () => 'O formulário tem partes ou campos demais.'],
  [
    /^The request body must be sent as (.+)\.$/,
    (type) => `O corpo da requisição deve ser enviado como ${type}.`,
  ],
]

function translateWith(rules: Rule[], text: string): string | null {
  for (const [pattern, render] of rules) {
    const match = pattern.exec(text)
    if (match) return render(...match.slice(1))
  }
  return null
}

/** One message in Portuguese: its known form translated, else the code's own Portuguese message. */
export function portugueseMessage(message: string, code: ErrorCode | ConsoleErrorCode): string {
  const exact = Object.values(CODE_MESSAGES).find((m) => m.en === message)
  if (exact) return exact.pt
  return translateWith(SERVICE_RULES, message) ?? translateWith(MESSAGES, message) ?? CODE_MESSAGES[code].pt
}

/**
 * What a typed placeholder of a Portuguese template (`{{status:claimStatus}}`) turns its value
 * into: a code through its one label (shared/labels.ts), or the English wording a message was
 * built with ("under review") into Portuguese. A value a table lacks is carried over.
 */
const WORDS: Record<string, Readonly<Record<string, string>>> = {
  ...LABEL_TABLES,
  /** The claim states an English message names in prose ("only a claim under review …"). */
  claimState: {
    'under review': 'em análise',
    'awaiting documents or under review': 'aguardando documentos ou em análise',
    'documents pending': 'aguardando documentos',
    approved: 'aprovado',
    denied: 'negado',
    settled: 'concluído',
    withdrawn: 'com desistência',
  },
  /** What was done to a claim, as the English message's participle. */
  claimAction: { approved: 'aprovado', denied: 'negado', settled: 'concluído', withdrawn: 'retirado' },
  /** The dashboard's period bounds. */
  periodField: { from: 'mês inicial', to: 'mês final' },
}

const word = (table: string | undefined, value: string) => {
  const words = table === undefined ? undefined : WORDS[table]
  return words && Object.hasOwn(words, value) ? (words[value] as string) : value
}

/** SERVICE_MESSAGES as rules: each `{{name}}` matches any text, and is carried over (typed: translated). */
const SERVICE_RULES: Rule[] = Object.entries(SERVICE_MESSAGES).map(([en, pt]) => {
  const names: string[] = []
  const pattern = en
    .split(/\{\{(\w+)\}\}/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      names.push(part)
      return '(.+?)'
    })
    .join('')
  const render = (...values: string[]) =>
    pt.replace(/\{\{(\w+)(?::(\w+))?\}\}/g, (_, name: string, table?: string) =>
      word(table, values[names.indexOf(name)] ?? ''),
    )
  return [new RegExp(`^${pattern}$`), render]
})

/** The summary of field errors (shared/errors.ts `summarize`), in Portuguese. */
function portugueseSummary(errors: FieldErrors, code: ErrorCode | ConsoleErrorCode): string {
  const all = Object.values(errors).flat()
  const [first] = all
  if (first === undefined) return CODE_MESSAGES[code].pt
  const more = all.length - 1
  return more > 0 ? `${first} (e mais ${more} erro${more > 1 ? 's' : ''})` : first
}

/** An error body (plugins/errors.ts `errorBody`) in the language asked for. */
export function localized<
  T extends { code: ErrorCode | ConsoleErrorCode; message: string; errors?: FieldErrors },
>(body: T, language: Language): T {
  if (language === 'en') return body
  if (!body.errors) return { ...body, message: portugueseMessage(body.message, body.code) }
  const errors = Object.fromEntries(
    Object.entries(body.errors).map(([key, messages]) => [
      key,
      messages.map((message) => portugueseMessage(message, body.code)),
    ]),
  )
  return { ...body, message: portugueseSummary(errors, body.code), errors }
}
