/**
 * The service's own messages (those thrown with their own wording, not their code's): English as
 * thrown → Portuguese. `{{name}}` stands for a value (a status, a number, a field name) and is
 * carried over as it is; status values stay the API's own (`pago`, `awaiting_payment`).
 */
export const SERVICE_MESSAGES: Record<string, string> = {
  // Subscriptions and installments
  'The subscription is canceled: its serial numbers can no longer be informed.':
    'A assinatura está cancelada: seus números de série não podem mais ser informados.',
  'The subscription changed while being canceled: try again.':
    'A assinatura mudou durante o cancelamento: tente de novo.',
  'The subscription expired unpaid: installment 1 was not paid within {{days}} days of contracting.':
    'A assinatura expirou sem pagamento: a parcela 1 não foi paga em até {{days}} dias da contratação.',
  'Only a pending subscription can be paid; this one is {{status}}.':
    'Só uma assinatura pendente pode ser paga; esta está no estado {{status}}.',
  'Installment 1 is unpaid: pay it with POST /subscriptions/{id}/payment, which keeps the card.':
    'A parcela 1 não foi paga: pague-a com POST /subscriptions/{id}/payment, que guarda o cartão.',
  'Installment 1 must be paid first.': 'A parcela 1 deve ser paga primeiro.',
  'The installment is canceled.': 'A parcela está cancelada.',
  'The installment can no longer be paid.': 'A parcela não pode mais ser paga.',
  'The {{field}} is already set and cannot be changed.':
    'O {{field}} já foi informado e não pode ser alterado.',
  'The {{field}} must contain a letter or a digit.': 'O {{field}} deve conter uma letra ou um dígito.',
  'The second serial number and serial number must be different.':
    'Os campos second serial number e serial number devem ser diferentes.',
  'The {{field}} already has an active protection. A device can be protected again once its current protection is canceled or has ended.':
    'O {{field}} já tem uma proteção ativa. Um aparelho pode ser protegido de novo quando sua proteção atual for cancelada ou terminar.',
  'The is used field and its alias used must agree.': 'O campo is used e seu alias used devem concordar.',
  // Annual plans
  'The annual plan is canceled.': 'O plano anual está cancelado.',
  'The annual plan is no longer awaiting payment.': 'O plano anual não está mais aguardando pagamento.',
  'The annual plan is {{status}}: only a plan awaiting payment can be paid.':
    'O plano anual está no estado {{status}}: só um plano aguardando pagamento pode ser pago.',
  'The annual plan is {{status}}: there is nothing left to cancel.':
    'O plano anual está no estado {{status}}: não há mais nada a cancelar.',
  'The imei 2 and imei must be different.': 'Os campos imei 2 e imei devem ser diferentes.',
  'The payment field is required for partners with the external gateway.':
    'O campo payment é obrigatório para parceiros com gateway externo.',
  'The payment installments field is required when payment method is credit card.':
    'O campo payment installments é obrigatório quando payment method é credit card.',
  'The refund of annual plan {{id}} is {{status}}, not failed.':
    'O reembolso do plano anual {{id}} está no estado {{status}}, não failed.',
  // Certificates
  'The subscription is {{status}}. A certificate is issued only for a contract in force: a subscription `pago`, an annual plan `paid` or `protected`.':
    'A assinatura está no estado {{status}}. Um certificado só é emitido para um contrato em vigor: uma assinatura `pago`, um plano anual `paid` ou `protected`.',
  'The annual plan is {{status}}. A certificate is issued only for a contract in force: a subscription `pago`, an annual plan `paid` or `protected`.':
    'O plano anual está no estado {{status}}. Um certificado só é emitido para um contrato em vigor: uma assinatura `pago`, um plano anual `paid` ou `protected`.',
  // Customers, plans, quotations
  'The customer document does not match the selected customer id.':
    'O customer document não corresponde ao customer id selecionado.',
  'No customer of this partner has this document: register it with POST /customers.':
    'Nenhum cliente deste parceiro tem este documento: cadastre-o com POST /customers.',
  'The {{field}} field is required when {{other}} is not present.':
    'O campo {{field}} é obrigatório quando {{other}} não está presente.',
  'The {{field}} field prohibits {{other}} from being present.':
    'O campo {{field}} proíbe a presença de {{other}}.',
  'The maxima field must have at most 2 decimal places.':
    'O campo maxima deve ter no máximo 2 casas decimais.',
  'This partner has no annual plan to quote.': 'Este parceiro não tem plano anual para cotar.',
  'Invalid catalog: {{problem}}': 'Catálogo inválido: {{problem}}',
  'Invalid catalog at {{where}}: {{problem}}': 'Catálogo inválido em {{where}}: {{problem}}',
  'The {{field}} must be from 0 up to {{max}}.': 'O {{field}} deve ser de 0 até {{max}}.',
  'The {{field}} must be above 0 up to {{max}}.': 'O {{field}} deve ser maior que 0 e até {{max}}.',
  'The {{field}} must be a whole number from 1 to {{max}}.':
    'O {{field}} deve ser um número inteiro de 1 a {{max}}.',
  'The {{field}} field does not apply to {{kind}} plans.':
    'O campo {{field}} não se aplica a planos {{kind}}.',
  'The installments field must be between 1 and 60.': 'O campo installments deve estar entre 1 e 60.',
  'The {{field}} must be one of {{choices}}.': 'O {{field}} deve ser um de {{choices}}.',
  // Claims
  'The occurred at field must be a valid date and time in the format YYYY-MM-DD HH:MM:SS.':
    'O campo occurred at deve ser uma data e hora válidas no formato YYYY-MM-DD HH:MM:SS.',
  'The occurred at must not be in the future.': 'O occurred at não pode estar no futuro.',
  'The claim must be opened within {{days}} days of the loss.':
    'O sinistro deve ser aberto em até {{days}} dias da ocorrência.',
  'The contract was not in force when the loss occurred.':
    'O contrato não estava em vigor quando a perda ocorreu.',
  'The selected type is not covered by the plan.': 'O tipo selecionado não é coberto pelo plano.',
  'The police report number field is required for robbery and qualified theft.':
    'O campo police report number é obrigatório para roubo e furto qualificado.',
  'The contract has another claim open: withdraw it or wait for its decision and settlement.':
    'O contrato tem outro sinistro aberto: retire-o ou aguarde sua decisão e liquidação.',
  'The contract has reached its limit of {{count}} approved claims in 365 days.':
    'O contrato atingiu seu limite de {{count}} sinistros aprovados em 365 dias.',
  'The claim is {{status}}: only a claim awaiting documents or under review can be withdrawn.':
    'O sinistro está no estado {{status}}: só um sinistro aguardando documentos ou em análise pode ser retirado.',
  'The claim is {{status}} ({{label}}): only a claim {{allowed}} can be {{action}}.':
    'O sinistro está no estado {{status}} ({{label}}): a operação ({{action}}) só vale para um sinistro {{allowed}}.',
  'The claim was decided meanwhile by another operator.':
    'Outro operador decidiu este sinistro neste meio-tempo.',
  'The claim was settled meanwhile by another operator.':
    'Outro operador liquidou este sinistro neste meio-tempo.',
  'Documents can no longer be added: the claim was decided or withdrawn.':
    'Não é mais possível adicionar documentos: o sinistro foi decidido ou retirado.',
  'A claim holds at most {{count}} documents.': 'Um sinistro tem no máximo {{count}} documentos.',
  'The file must be a JPEG, PNG, WebP, HEIC or PDF (recognised from its contents).':
    'O arquivo deve ser JPEG, PNG, WebP, HEIC ou PDF (reconhecido pelo conteúdo).',
  'The approved amount must be greater than 0, with at most two decimals.':
    'O approved amount deve ser maior que 0, com no máximo duas casas decimais.',
  "The approved amount must not exceed the contract's LMI ({{lmi}}).":
    'O approved amount não pode ser maior que o LMI do contrato ({{lmi}}).',
  'The note is required: the partner sees it.': 'A nota é obrigatória: o parceiro a vê.',
  'The note must not exceed {{count}} characters.': 'A nota não pode ter mais de {{count}} caracteres.',
  // Payments
  'The card number is invalid.': 'O número do cartão é inválido.',
  'The card expiry must be a month and year, {{shape}}.':
    'A validade do cartão deve ser um mês e ano, {{shape}}.',
  'The card has expired.': 'O cartão está vencido.',
  'The card has insufficient funds.': 'O cartão não tem saldo suficiente.',
  'The card security code must be 3 or 4 digits.': 'O código de segurança do cartão deve ter 3 ou 4 dígitos.',
  'This partner uses the external gateway: notify payments through the notify-payment call.':
    'Este parceiro usa o gateway externo: informe os pagamentos pela chamada notify-payment.',
  'This partner uses the own gateway: pay annual plans with POST /annual-plans/{id}/payment.':
    'Este parceiro usa o gateway próprio: pague planos anuais com POST /annual-plans/{id}/payment.',
  'This partner collects payments through the own gateway: use the payment call.':
    'Este parceiro recebe pagamentos pelo gateway próprio: use a chamada de pagamento.',
  'Card payments are not available in this environment.':
    'Pagamentos com cartão não estão disponíveis neste ambiente.',
  'The payment gateway did not answer; nothing was recorded. Retry after Retry-After seconds.':
    'O gateway de pagamento não respondeu; nada foi registrado. Tente de novo após os segundos de Retry-After.',
  'An earlier attempt of this payment is still being answered by the gateway: retry it shortly.':
    'Uma tentativa anterior deste pagamento ainda está sendo respondida pelo gateway: tente de novo em instantes.',
  'A card charge of this subscription went to the gateway and is being recorded: try again after Retry-After seconds.':
    'Uma cobrança de cartão desta assinatura foi ao gateway e está sendo registrada: tente de novo após os segundos de Retry-After.',
  'A card charge of this plan went to the gateway and is being recorded: try again after Retry-After seconds.':
    'Uma cobrança de cartão deste plano foi ao gateway e está sendo registrada: tente de novo após os segundos de Retry-After.',
  'Too many declined card attempts on this contract today: try again after Retry-After seconds.':
    'Tentativas de cartão recusadas demais neste contrato hoje: tente de novo após os segundos de Retry-After.',
  'Too many declined card attempts on this partner today: try again after Retry-After seconds.':
    'Tentativas de cartão recusadas demais neste parceiro hoje: tente de novo após os segundos de Retry-After.',
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
  // Partners, operators and the console
  'The LMI factors must satisfy 0 < min ≤ max ≤ 10.':
    'Os fatores de LMI devem satisfazer 0 < min ≤ max ≤ 10.',
  'The password must be at least 8 characters, not only spaces.':
    'A senha deve ter no mínimo 8 caracteres, não só espaços.',
  'The email belongs to a user of another partner.': 'O email pertence a um usuário de outro parceiro.',
  'The password must be {{min}} to 200 characters.': 'A senha deve ter de {{min}} a 200 caracteres.',
  'The email must be a valid e-mail address.': 'O email deve ser um endereço de e-mail válido.',
  'An operator with this e-mail already exists.': 'Já existe um operador com este e-mail.',
  'An operator cannot disable itself.': 'Um operador não pode desativar a si mesmo.',
  'Wrong or already used code.': 'Código incorreto ou já usado.',
  'This request must come from the console’s own pages.':
    'Esta requisição deve vir das próprias páginas do console.',
  'This action needs the {{role}} role.': 'Esta ação exige o papel {{role}}.',
  'The {{field}} field must be a month, YYYY-MM.': 'O campo {{field}} deve ser um mês, YYYY-MM.',
  'The to field must be a month at or after from.': 'O campo to deve ser um mês igual ou posterior a from.',
  'The period must be at most {{months}} months.': 'O período deve ter no máximo {{months}} meses.',
}
