/** The service's own messages in Portuguese (service-messages.ts). Contracts: subscriptions and their installments, annual plans, certificates, customers, plans and quotations. */
export const CONTRACT_MESSAGES: Record<string, string> = {
  // Subscriptions and installments
  'The subscription is canceled: its serial numbers can no longer be informed.':
    'A assinatura está cancelada: seus números de série não podem mais ser informados.',
  'The subscription changed while being canceled: try again.':
    'A assinatura mudou durante o cancelamento: tente de novo.',
  'The subscription expired unpaid: installment 1 was not paid within {{days}} days of contracting.':
    'A assinatura expirou sem pagamento: a parcela 1 não foi paga em até {{days}} dias da contratação.',
  'Only a pending subscription can be paid; this one is {{status}}.':
    'Só uma assinatura pendente pode ser paga; esta está “{{status:subscriptionStatus}}”.',
  'Installment 1 is unpaid: pay it with POST /subscriptions/{id}/payment, which keeps the card.':
    'A parcela 1 não foi paga: pague-a com POST /subscriptions/{id}/payment, que guarda o cartão.',
  'Installment 1 must be paid first.': 'A parcela 1 deve ser paga primeiro.',
  'The installment is canceled.': 'A parcela está cancelada.',
  'The installment can no longer be paid.': 'A parcela não pode mais ser paga.',
  'The {{field}} is already set and cannot be changed.':
    'O {{field}} já foi informado e não pode ser alterado.',
  'The {{field}} must be Latin letters and digits (A-Z, 0-9); spaces and punctuation are ignored.':
    'O {{field}} deve ter só letras latinas e dígitos (A-Z, 0-9); espaços e pontuação são ignorados.',
  'The second serial number and serial number must be different.':
    'Os campos second serial number e serial number devem ser diferentes.',
  'The {{field}} already has an active protection. A device can be protected again once its current protection is canceled or has ended.':
    'O {{field}} já tem uma proteção ativa. Um aparelho pode ser protegido de novo quando sua proteção atual for cancelada ou terminar.',
  'The is used field and its alias used must agree.': 'O campo is used e seu alias used devem concordar.',
  // Annual plans
  'The annual plan is canceled.': 'O plano anual está cancelado.',
  'The annual plan is no longer awaiting payment.': 'O plano anual não está mais aguardando pagamento.',
  'The annual plan is {{status}}: only a plan awaiting payment can be paid.':
    'O plano anual está “{{status:annualPlanStatus}}”: só um plano aguardando pagamento pode ser pago.',
  'The annual plan is {{status}}: there is nothing left to cancel.':
    'O plano anual está “{{status:annualPlanStatus}}”: não há mais nada a cancelar.',
  'The imei 2 and imei must be different.': 'Os campos imei 2 e imei devem ser diferentes.',
  'The payment field is required for partners with the external gateway.':
    'O campo payment é obrigatório para parceiros com gateway externo.',
  'The payment installments field is required when payment method is credit card.':
    'O campo payment installments é obrigatório quando payment method é credit card.',
  'The refund of annual plan {{id}} is {{status}}, not failed.':
    'O reembolso do plano anual {{id}} está “{{status:refundStatus}}”: só um reembolso com falha pode ser tentado de novo.',
  // Certificates
  'The subscription is {{status}}. A certificate is issued only for a contract in force: a subscription `pago`, an annual plan `paid` or `protected`.':
    'A assinatura está “{{status:subscriptionStatus}}”. Um certificado só é emitido para um contrato em vigor: uma assinatura paga ou um plano anual pago ou protegido.',
  'The annual plan is {{status}}. A certificate is issued only for a contract in force: a subscription `pago`, an annual plan `paid` or `protected`.':
    'O plano anual está “{{status:annualPlanStatus}}”. Um certificado só é emitido para um contrato em vigor: uma assinatura paga ou um plano anual pago ou protegido.',
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
  'The 7 days to withdraw from this contract have passed.':
    'Os 7 dias para desistir deste contrato já passaram.',
  'The subscription is {{status}}: there is nothing left to withdraw from.':
    'A assinatura está “{{status:subscriptionStatus}}”: não há mais de que desistir.',
  'The annual plan is {{status}}: there is nothing left to withdraw from.':
    'O plano anual está “{{status:annualPlanStatus}}”: não há mais de que desistir.',
}
