import { Type } from 'typebox'
import { nullable } from '../../http/http-schemas.js'
import { Instant, PartnerRef } from './console.schemas.js'

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'A CPF or CNPJ (with or without punctuation), an IMEI or serial number, a policy number (`AMP-…`), a claim number (`SIN-…`), a subscription or annual-plan id, or the starts of a name’s words (3 or more characters each, accents and case ignored).',
  }),
})

const EXAMPLE = {
  customers: [
    {
      name: 'Maria da Silva',
      document_masked: '529.***.***-25',
      document_kind: 'cpf',
      customers: [
        { id: 1, name: 'Maria da Silva', partner: { id: 1, name: 'Loja Exemplo' } },
        { id: 7, name: 'Maria da Silva', partner: { id: 2, name: 'Operadora Exemplo' } },
      ],
      contracts: [
        {
          kind: 'subscription',
          id: 1,
          policy_number: 'AMP-2026-000001',
          partner: { id: 1, name: 'Loja Exemplo' },
          customer_id: 1,
          plan_name: 'Proteção Total 12x',
          status: 'canceled',
          status_label: 'Cancelado',
          device: { model: { id: 2, name: 'iPhone 16 Pro' }, serial_number: '490154203237518' },
          contracted_at: '2025-10-01T15:00:00.000Z',
        },
        {
          kind: 'annual_plan',
          id: 3,
          policy_number: 'AMP-2026-000003',
          partner: { id: 2, name: 'Operadora Exemplo' },
          customer_id: 7,
          plan_name: 'Anual Premium',
          status: 'protected',
          status_label: 'Protegido',
          device: { model: { id: 2, name: 'iPhone 16 Pro' }, serial_number: '490154203237518' },
          contracted_at: '2026-11-02T12:00:00.000Z',
        },
      ],
    },
  ],
}

export const SearchResult = Type.Object(
  {
    customers: Type.Array(
      Type.Object({
        name: Type.String(),
        document_masked: Type.String({ description: 'The CPF or CNPJ with its middle hidden.' }),
        document_kind: Type.Enum(['cpf', 'cnpj']),
        customers: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), partner: PartnerRef }), {
          description: 'The person as a customer of each partner.',
        }),
        contracts: Type.Array(
          Type.Object({
            kind: Type.Enum(['subscription', 'annual_plan']),
            id: Type.Integer(),
            policy_number: nullable(Type.String(), 'The policy number (`AMP-…`), given at payment.'),
            partner: PartnerRef,
            customer_id: Type.Integer(),
            plan_name: Type.String(),
            status: Type.String({ description: 'As the partner API shows it now.' }),
            status_label: Type.String({ description: 'The status in Portuguese.' }),
            device: Type.Object({
              model: Type.Object({ id: Type.Integer(), name: Type.String() }),
              serial_number: nullable(Type.String(), 'Serial number or IMEI.'),
            }),
            contracted_at: Instant('Contracting.'),
          }),
          { description: 'Every contract under every partner, oldest first.' },
        ),
      }),
      { description: 'One entry per person (CPF/CNPJ); empty when nothing matched.' },
    ),
  },
  { examples: [EXAMPLE] },
)
