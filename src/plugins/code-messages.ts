import type { ConsoleErrorCode, ErrorCode } from '../shared/errors.js'

// The message catalogue: each error code's message in English and in Portuguese (README, Using the
// API: errors in Portuguese). messages.ts translates an error body with it.

/** Each code's message in both languages: the English one is the service's usual text. */
export const CODE_MESSAGES: Record<ErrorCode | ConsoleErrorCode, { en: string; pt: string }> = {
  invalid_json: {
    en: 'The request body is not valid JSON.',
    pt: 'O corpo da requisição não é um JSON válido.',
  },
  bad_request: { en: 'Malformed HTTP request.', pt: 'Requisição HTTP malformada.' },
  unauthenticated: { en: 'Unauthenticated.', pt: 'Não autenticado.' },
  card_declined: { en: 'The card was declined.', pt: 'O cartão foi recusado.' },
  not_found: { en: 'Resource not found.', pt: 'Recurso não encontrado.' },
  request_timeout: { en: 'Request timeout.', pt: 'Tempo da requisição esgotado.' },
  idempotency_key_in_flight: {
    en: 'A request with this Idempotency-Key is still in progress.',
    pt: 'Uma requisição com esta Idempotency-Key ainda está em andamento.',
  },
  payment_in_progress: {
    en: 'A payment of this item is in progress: try again once it has answered.',
    pt: 'Um pagamento deste item está em andamento: tente de novo quando ele for respondido.',
  },
  clock_advancing: {
    en: 'The sandbox clock is advancing: try again once it has finished.',
    pt: 'O relógio do sandbox está avançando: tente de novo quando terminar.',
  },
  payload_too_large: {
    en: 'The request body is too large.',
    pt: 'O corpo da requisição é grande demais.',
  },
  unsupported_media_type: {
    en: 'The request body must be sent as application/json.',
    pt: 'O corpo da requisição deve ser enviado como application/json.',
  },
  expectation_failed: {
    en: 'Only "Expect: 100-continue" is supported.',
    pt: 'Só "Expect: 100-continue" é aceito.',
  },
  validation_failed: { en: 'The given data was invalid.', pt: 'Os dados enviados são inválidos.' },
  invalid_state: {
    en: 'The resource’s state does not allow this call.',
    pt: 'O estado do recurso não permite esta operação.',
  },
  wrong_gateway: {
    en: 'This call is not available in the partner’s payment gateway mode.',
    pt: 'Esta operação não está disponível no modo de gateway de pagamento do parceiro.',
  },
  idempotency_key_reused: {
    en: 'This Idempotency-Key was used with another request.',
    pt: 'Esta Idempotency-Key já foi usada com outra requisição.',
  },
  rate_limited: { en: 'Too many requests.', pt: 'Requisições demais.' },
  headers_too_large: {
    en: 'Request header fields too large (at most 16 KB, the URL included).',
    pt: 'Cabeçalhos da requisição grandes demais (no máximo 16 KB, com a URL).',
  },
  server_error: { en: 'Server error.', pt: 'Erro no servidor.' },
  gateway_error: {
    en: 'The payment gateway refused the request; nothing was charged. Quote request_id to support.',
    pt: 'O gateway de pagamento recusou a requisição; nada foi cobrado. Informe o request_id ao suporte.',
  },
  service_unavailable: {
    en: 'Service temporarily unavailable. Retry shortly.',
    pt: 'Serviço temporariamente indisponível. Tente de novo em instantes.',
  },
  // The operator console's own codes (shared/errors.ts CONSOLE_ERROR_CODES).
  invalid_credentials: { en: 'Wrong e-mail or password.', pt: 'E-mail ou senha incorretos.' },
  forbidden: { en: 'The role is too low.', pt: 'Seu papel não permite esta ação.' },
  origin_refused: {
    en: 'The request came from another origin.',
    pt: 'A requisição veio de outra origem.',
  },
  password_change_required: {
    en: 'Replace the one-time password first.',
    pt: 'Troque primeiro a senha provisória.',
  },
  decision_conflict: {
    en: 'The claim was decided by another operator first.',
    pt: 'Outro operador decidiu este sinistro primeiro.',
  },
}
