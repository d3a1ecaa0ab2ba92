/** The service's own messages in Portuguese (service-messages.ts). Events, webhooks, the sandbox, and the HTTP layer. */
export const PLATFORM_MESSAGES: Record<string, string> = {
  // Events, webhooks, sandbox
  'The after field must be the id of one of your events of the last {{days}} days.':
    'O campo after deve ser o id de um de seus eventos dos últimos {{days}} dias.',
  'The {{field}} field cannot be changed.': 'O campo {{field}} não pode ser alterado.',
  'A partner may have at most {{count}} webhook endpoints; delete one before adding another.':
    'Um parceiro pode ter no máximo {{count}} endpoints de webhook; exclua um antes de adicionar outro.',
  'The url must be a valid absolute URL.': 'A url deve ser uma URL absoluta válida.',
  'The url must not contain credentials.': 'A url não pode conter credenciais.',
  'The url host name does not resolve.': 'O nome de host da url não resolve.',
  'The url must not be greater than {{count}} characters.':
    'A url não pode ter mais de {{count}} caracteres.',
  'This event was delivered again {{count}} times in the last hour. Retry in {{after}}.':
    'Este evento foi reenviado {{count}} vezes na última hora. Tente de novo em {{after}}.',
  'Send either days or hours, not both.': 'Envie days ou hours, não ambos.',
  'The clock cannot move more than 50 years ahead of real time.':
    'O relógio não pode avançar mais de 50 anos além do tempo real.',
  'This clock is being advanced by another request; try again once it ends.':
    'Este relógio está sendo avançado por outra requisição; tente de novo quando ela terminar.',
  'The advance failed midway; the clock stays at the last day fully processed: {{now}}, advanced by {{seconds}} seconds.':
    'O avanço falhou no meio; o relógio fica no último dia processado por completo: {{now}}, avançado em {{seconds}} segundos.',
  // The HTTP layer
  'The {{field}} query parameter is not known.': 'O parâmetro de consulta {{field}} não é conhecido.',
  'A request must carry one Host header.': 'Uma requisição deve ter um único cabeçalho Host.',
  'The request body must be sent as application/json in UTF-8.':
    'O corpo da requisição deve ser enviado como application/json em UTF-8.',
  'The request body must not be compressed: Content-Encoding is not supported.':
    'O corpo da requisição não pode ser comprimido: Content-Encoding não é aceito.',
  'The request body must not nest arrays or objects deeper than {{depth}} levels.':
    'O corpo da requisição não pode aninhar listas ou objetos em mais de {{depth}} níveis.',
  'The Idempotency-Key header must be 1 to 255 visible ASCII characters.':
    'O cabeçalho Idempotency-Key deve ter de 1 a 255 caracteres ASCII visíveis.',
  'This Idempotency-Key was already used with another request.':
    'Esta Idempotency-Key já foi usada com outra requisição.',
  'Too many failed logins for this account. Retry in {{count}} minutes.':
    'Falhas de login demais nesta conta. Tente de novo em {{count}} minutos.',
  'Too many failed logins for this account. Retry in {{count}} minute.':
    'Falhas de login demais nesta conta. Tente de novo em {{count}} minuto.',
  'Send one file, as the {{field}} field.': 'Envie um arquivo, no campo {{field}}.',
  'Not ready: shutting down.': 'Não está pronto: encerrando.',
  'Not ready: the database is unreachable.': 'Não está pronto: o banco de dados está inacessível.',
}
