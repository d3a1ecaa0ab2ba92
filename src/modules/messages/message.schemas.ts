import { type Static, Type } from 'typebox'
import { Id, named, Timestamp } from '../../http/http-schemas.js'
import { MESSAGE_KINDS, MESSAGE_STATES } from './message.rules.js'

const MESSAGE_EXAMPLE = {
  id: 1,
  customer_id: 1,
  kind: 'sign_in',
  event_id: null,
  to: 'maria@example.com',
  subject: 'Seu código de acesso: 482913',
  text: 'Olá, Maria.\n\nSeu código de acesso ao Portal do segurado é 482913. Ele vale por 10 minutos.\n',
  state: 'kept',
  attempts: 1,
  created_at: '2026-12-07 10:00:00',
  sent_at: null,
}

export const SandboxMessage = named(
  'SandboxMessage',
  Type.Object(
    {
      id: Id('The message.'),
      customer_id: Id('The customer it goes to.'),
      kind: Type.Enum([...MESSAGE_KINDS], { description: 'What it says.' }),
      event_id: Type.Union([Type.String(), Type.Null()], {
        description: 'The event it announces (`evt_…`); null for a sign-in message.',
      }),
      to: Type.String({ description: "The customer's e-mail address." }),
      subject: Type.String(),
      text: Type.String({ description: 'The plain-text part (the HTML part says the same).' }),
      state: Type.Enum([...MESSAGE_STATES], {
        description:
          '`pending` (queued, or waiting for a retry), `sent`, `kept` (no mail server configured: kept, not sent) or `failed` (refused for 24 h).',
      }),
      attempts: Type.Integer({ minimum: 0 }),
      created_at: Timestamp('When it was queued.'),
      sent_at: Type.Union([Timestamp('When the mail server accepted it.'), Type.Null()]),
    },
    { examples: [MESSAGE_EXAMPLE] },
  ),
)
export type SandboxMessage = Static<typeof SandboxMessage>

export const SandboxMessageList = Type.Object(
  { data: Type.Array(SandboxMessage, { description: 'Newest first.' }) },
  { examples: [{ data: [MESSAGE_EXAMPLE] }] },
)

export const SandboxMessageQuery = Type.Object({
  customer_id: Type.Optional(Id("Only this customer's messages.")),
  kind: Type.Optional(Type.Enum([...MESSAGE_KINDS], { description: 'Only messages of this kind.' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 50, description: '1–100, default 50.' }),
  ),
})
export type SandboxMessageQuery = Static<typeof SandboxMessageQuery>
