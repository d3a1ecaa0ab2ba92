/** The service's own messages in Portuguese (service-messages.ts). Payments. */
export const PAYMENT_MESSAGES: Record<string, string> = {
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
  'The installment is already paid.': 'A parcela já está paga.',
  'This contract’s payments are collected by its partner: pay through the partner.':
    'Os pagamentos deste contrato são recebidos pelo parceiro: pague por ele.',
  'Nothing on this subscription is due and unpaid.': 'Nada desta assinatura está vencido e em aberto.',
  'The payment code can no longer be paid: ask for a new one.':
    'O código de pagamento não pode mais ser pago: peça um novo.',
  'A boleto needs the customer’s address (street, city, state and zip code).':
    'Um boleto precisa do endereço do cliente (rua, cidade, estado e CEP).',
  'Only the sandbox gateway’s payments are paid here; Stripe’s are paid at Stripe.':
    'Só os pagamentos do gateway sandbox são pagos aqui; os da Stripe são pagos na Stripe.',
  'The Stripe signature of this event is missing, invalid or too old.':
    'A assinatura Stripe deste evento está ausente, inválida ou antiga demais.',
}
