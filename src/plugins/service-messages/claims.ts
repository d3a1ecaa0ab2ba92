/** The service's own messages in Portuguese (service-messages.ts). Claims. */
export const CLAIM_MESSAGES: Record<string, string> = {
  // Claims
  'The occurred at field must be a valid date and time in the format YYYY-MM-DD HH:MM:SS.':
    'A data da ocorrência deve ser uma data e hora válidas no formato AAAA-MM-DD HH:MM:SS.',
  'The occurred at must not be in the future.': 'A data da ocorrência não pode estar no futuro.',
  'The police report issued on must not be in the future.':
    'A data do boletim de ocorrência não pode estar no futuro.',
  'The claim must be opened within {{days}} days of the loss.':
    'O sinistro deve ser aberto em até {{days}} dias da ocorrência.',
  'The contract was not in force when the loss occurred.':
    'O contrato não estava em vigor quando a perda ocorreu.',
  'The selected type is not covered by the plan.': 'O tipo selecionado não é coberto pelo plano.',
  'The police report number field is required for robbery and qualified theft.':
    'O número do boletim de ocorrência é obrigatório para roubo e furto qualificado.',
  'The contract has another claim open: withdraw it or wait for its decision and settlement.':
    'O contrato tem outro sinistro aberto: retire-o ou aguarde sua decisão e liquidação.',
  'The contract has reached its limit of {{count}} approved claims in 365 days.':
    'O contrato atingiu seu limite de {{count}} sinistros aprovados em 365 dias.',
  'The claim is {{status}}: only a claim awaiting documents or under review can be withdrawn.':
    'O sinistro está {{status:claimState}}: só um sinistro aguardando documentos ou em análise pode ser retirado.',
  'The claim is {{status}} ({{label}}): only a claim {{allowed}} can be {{action}}.':
    'O sinistro está “{{label}}”: só um sinistro {{allowed:claimState}} pode ser {{action:claimAction}}.',
  'The claim was decided meanwhile by another operator.':
    'Outro operador decidiu este sinistro neste meio-tempo.',
  'The claim was settled meanwhile by another operator.':
    'Outro operador liquidou este sinistro neste meio-tempo.',
  'Documents can no longer be added: the claim was decided or withdrawn.':
    'Não é mais possível adicionar documentos: o sinistro foi decidido ou retirado.',
  'A claim holds at most {{count}} documents.': 'Um sinistro tem no máximo {{count}} documentos.',
  "The contract's claims hold at most {{count}} documents uploaded in {{days}} days, withdrawn claims' included.":
    'Os sinistros do contrato têm no máximo {{count}} documentos enviados em {{days}} dias, contados os dos sinistros retirados.',
  "This file would take the partner's claim documents past their daily quota: try again after Retry-After seconds, once the day ends.":
    'Este arquivo passaria da cota diária de documentos de sinistro do parceiro: tente de novo depois dos segundos de Retry-After, quando o dia terminar.',
  'The file must be a JPEG, PNG, WebP, HEIC or PDF (recognised from its contents).':
    'O arquivo deve ser JPEG, PNG, WebP, HEIC ou PDF (reconhecido pelo conteúdo).',
  'The approved amount must be greater than 0, with at most two decimals.':
    'O valor aprovado deve ser maior que 0, com no máximo duas casas decimais.',
  "The approved amount must not exceed the contract's LMI ({{lmi}}).":
    'O valor aprovado não pode ser maior que o LMI do contrato ({{lmi}}).',
  'The note is required: the partner sees it.': 'A nota é obrigatória: o parceiro a vê.',
  'The note must not exceed {{count}} characters.': 'A nota não pode ter mais de {{count}} caracteres.',
  // Requesting documents
  'The kinds field must name at least one document kind.': 'Indique ao menos um tipo de documento em kinds.',
  'Each kind must be one of {{kinds}}.': 'Cada tipo de documento deve ser um de {{kinds}}.',
  'The message must be {{min}} to {{max}} characters.':
    'A mensagem deve ter de {{min}} a {{max}} caracteres.',
}
