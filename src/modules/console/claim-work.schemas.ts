import { type Static, Type } from 'typebox'
import { nullable } from '../../http/http-schemas.js'
import { DOCUMENT_KINDS } from '../claims/claim.rules.js'
import { ACTIVITY_KINDS, NOTE_MAX } from './claim-work.rules.js'
import { Instant } from './console.schemas.js'

export const Assignee = nullable(
  Type.Object({ id: Type.Integer(), email: Type.String() }),
  'The operator the claim is assigned to; null: nobody.',
)

export const ActivityEntry = Type.Object({
  id: Type.String({ description: 'Stable within the claim: `document:12`, `note:3`, `audit:40`…' }),
  kind: Type.Enum([...ACTIVITY_KINDS], {
    description:
      '`opened`, `document_received`, `documents_requested`, `note`, `approved`, `denied`, `settled`, `assigned`.',
  }),
  at: Instant('When.'),
  by: Type.Object(
    {
      type: Type.Enum(['operator', 'cli', 'partner']),
      operator_id: nullable(Type.Integer(), 'The operator, when one acted in the console.'),
      label: Type.String({ description: 'The operator’s e-mail, `cli:<user>`, or the partner’s name.' }),
    },
    { description: 'Who: an operator (console), the CLI, or the partner (opening, uploads, its sandbox).' },
  ),
  document: Type.Optional(
    Type.Object({ id: Type.Integer(), kind: Type.Enum([...DOCUMENT_KINDS]), filename: Type.String() }),
  ),
  kinds: Type.Optional(Type.Array(Type.Enum([...DOCUMENT_KINDS]), { description: 'The kinds requested.' })),
  message: Type.Optional(Type.String({ description: 'The request’s message.' })),
  note: Type.Optional(Type.String({ description: 'The internal note.' })),
  assignee: Type.Optional(Assignee),
})

export const Activity = Type.Array(ActivityEntry, {
  description:
    'What happened to the claim, oldest first: opening, documents received, requests, notes, assignment, decision and settlement, each with who and when.',
})

export const AssignBody = Type.Object(
  {
    assignee_id: nullable(
      Type.Integer({ minimum: 1 }),
      'The operator (an adjuster or admin) to assign; null to release the claim. An adjuster takes an unassigned claim or releases their own; an admin assigns anyone.',
    ),
  },
  { examples: [{ assignee_id: 2 }] },
)
export type AssignBody = Static<typeof AssignBody>

export const NoteBody = Type.Object(
  {
    body: Type.String({
      maxLength: NOTE_MAX * 2,
      description: 'The note, 1 to 2,000 characters; internal (the partner never sees it).',
    }),
  },
  { examples: [{ body: 'Liguei para a cliente: o BO foi registrado na 14ª DP, aguardar cópia.' }] },
)

export const Note = Type.Object(
  {
    id: Type.Integer(),
    body: Type.String(),
    author: Type.Object({ id: Type.Integer(), email: Type.String() }),
    created_at: Instant('When it was written.'),
  },
  {
    examples: [
      {
        id: 1,
        body: 'Liguei para a cliente: o BO foi registrado na 14ª DP, aguardar cópia.',
        author: { id: 2, email: 'ana@amparo.example' },
        created_at: '2026-11-21T13:10:00.000Z',
      },
    ],
  },
)
