/** The service's own messages in Portuguese (service-messages.ts). Partners, operators and the console. */
export const CONSOLE_MESSAGES: Record<string, string> = {
  // Partners, operators and the console
  'Wrong or expired code: ask for a new one.': 'Código incorreto ou expirado: peça um novo.',
  'Too many codes asked for this document: try again later.':
    'Muitos códigos pedidos para este documento: tente de novo mais tarde.',
  'Too many sign-in attempts from this address: try again in a minute.':
    'Muitas tentativas de entrar a partir deste endereço: tente de novo em um minuto.',
  'This sign-in link is not valid any more: ask for a code by e-mail.':
    'Este link de acesso não vale mais: peça um código por e-mail.',
  'Choose exactly one contract.': 'Escolha exatamente uma proteção.',
  'The document must be a valid CPF or CNPJ.': 'O CPF ou CNPJ não é válido.',
  'The code must be 6 digits.': 'O código tem 6 dígitos.',
  'This request must come from the portal’s own pages.':
    'Este pedido deve vir das páginas do próprio portal.',
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
  'Wrong current password or code.': 'Senha atual ou código incorretos.',
  'The code of the authenticator is required.': 'Informe o código do aplicativo autenticador.',
  'The new password must differ from the current one.': 'A nova senha deve ser diferente da atual.',
  'This request must come from the console’s own pages.':
    'Esta requisição deve vir das próprias páginas do console.',
  'This action needs the {{role}} role.': 'Esta ação exige o papel {{role:role}}.',
  'The {{field}} field must be a month, YYYY-MM.': 'O {{field:periodField}} deve ser um mês (AAAA-MM).',
  'The to field must be a month at or after from.': 'O mês final deve ser igual ou posterior ao mês inicial.',
  'The period must be at most {{months}} months.': 'O período deve ter no máximo {{months}} meses.',
  // The claims desk's work
  'Only an adjuster or an admin assigns claims.': 'Só um regulador ou um administrador atribui sinistros.',
  'Only an admin reassigns a claim to someone else or takes it from its assignee.':
    'Só um administrador atribui um sinistro a outra pessoa ou o tira de seu responsável.',
  'The assignee must be an active adjuster or admin.':
    'O responsável deve ser um regulador ou administrador ativo.',
  'The claim was assigned meanwhile by another operator.':
    'Outro operador atribuiu este sinistro neste meio-tempo.',
  'The note must not be empty.': 'A nota não pode ficar vazia.',
}
