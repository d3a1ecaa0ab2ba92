import { type Static, Type } from 'typebox'
import { named, nullable } from '../../http/http-schemas.js'

const addressFields = {
  street: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Required, at most 255; trimmed, blank is refused.',
  }),
  number: Type.Integer({
    minimum: 1,
    maximum: 999_999,
    description: 'Building number: a JSON integer from 1 to 999999 (not a string).',
  }),
  zipcode: Type.String({
    format: 'cep',
    maxLength: 10,
    description: 'CEP: exactly 8 digits, bare (`01310100`) or formatted (`01310-100`); returned bare.',
  }),
  neighborhood: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'Required, at most 100; trimmed, blank is refused.',
  }),
  city: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'Required, at most 100; trimmed, blank is refused.',
  }),
  state: Type.String({
    format: 'br-state',
    maxLength: 2,
    description: 'Two-letter Brazilian state code (UF), any case (`sp`); returned uppercase.',
  }),
}

const AddressInput = Type.Object({
  ...addressFields,
  complement: Type.Optional(
    nullable(Type.String({ maxLength: 255 }), 'Optional, string or null, at most 255; blank means none.'),
  ),
})

export type AddressInput = Static<typeof AddressInput>

export const CustomerBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Full name; required, at most 255; trimmed, blank is refused.',
    }),
    document: Type.String({
      format: 'cpf-or-cnpj',
      maxLength: 20,
      description:
        'CPF (11 digits) or CNPJ (14 characters: numeric, or the alphanumeric form of July 2026, letters in ' +
        'any case), bare or formatted; check digits are verified and repeated-digit numbers refused. ' +
        'Stored and returned bare (alphanumeric CNPJ uppercase). Unique per partner.',
    }),
    email: Type.String({
      format: 'email',
      maxLength: 255,
      description: 'A valid e-mail address, at most 255.',
    }),
    phone: Type.String({
      format: 'br-phone',
      maxLength: 20,
      description:
        'Brazilian phone with area code: mobile (area code + 9 digits) or landline (area code + 8 digits), ' +
        'optionally with +55 and separators; returned as bare national digits.',
    }),
    address: Type.Optional(
      nullable(
        AddressInput,
        'Optional; null or absent means no address. When sent, every field but `complement` is required.',
      ),
    ),
  },
  {
    description: 'Any other field (`id`, `partner_id`, `created_at`, …) is ignored.',
    examples: [
      {
        name: 'Maria da Silva',
        document: '529.982.247-25',
        email: 'maria@example.com',
        phone: '(11) 98765-4321',
        address: {
          street: 'Avenida Paulista',
          number: 1000,
          complement: 'Apto 12',
          zipcode: '01310-100',
          neighborhood: 'Bela Vista',
          city: 'São Paulo',
          state: 'SP',
        },
      },
    ],
  },
)

export type CustomerBody = Static<typeof CustomerBody>

const Address = Type.Object({
  street: Type.String(),
  number: Type.Integer(),
  complement: Type.Union([Type.String(), Type.Null()]),
  zipcode: Type.String({ description: '8 digits.' }),
  neighborhood: Type.String(),
  city: Type.String(),
  state: Type.String({ description: 'Uppercase UF.' }),
})

/** The customer as other resources embed it in their examples (no address given). */
export const CUSTOMER_EXAMPLE = {
  id: 42,
  name: 'Maria da Silva',
  document: '52998224725',
  email: 'maria@example.com',
  phone: '11987654321',
  address: null,
  created_at: '2026-11-21 09:00:00',
}

export const Customer = named(
  'Customer',
  Type.Object(
    {
      id: Type.Integer({ description: 'Send it as `customer_id` when contracting.' }),
      name: Type.String(),
      document: Type.String({ description: 'Bare CPF or CNPJ (alphanumeric CNPJ uppercase).' }),
      email: Type.String(),
      phone: Type.String({ description: 'Bare national digits with area code.' }),
      address: Type.Union([Address, Type.Null()], { description: 'Null when none was given.' }),
      created_at: Type.String({ description: '`YYYY-MM-DD HH:MM:SS` in the service time zone.' }),
    },
    {
      description: 'A customer of the authenticated partner.',
      examples: [
        {
          id: 42,
          name: 'Maria da Silva',
          document: '52998224725',
          email: 'maria@example.com',
          phone: '11987654321',
          address: {
            street: 'Avenida Paulista',
            number: 1000,
            complement: 'Apto 12',
            zipcode: '01310100',
            neighborhood: 'Bela Vista',
            city: 'São Paulo',
            state: 'SP',
          },
          created_at: '2026-11-21 09:00:00',
        },
      ],
    },
  ),
)
export type Customer = Static<typeof Customer>

export const CustomerParams = Type.Object({
  document: Type.String({
    maxLength: 32,
    description:
      'CPF or CNPJ, bare or formatted (the `/` of a formatted CNPJ as is or as `%2F`); letters in any case.',
    examples: ['52998224725'],
  }),
})

/** A formatted CNPJ whose `/` was sent unencoded: the two halves the router split it into. */
export const CnpjPathParams = Type.Object({
  root: Type.String({ maxLength: 16 }),
  branch: Type.String({ maxLength: 16 }),
})
