import { type Static, Type } from 'typebox'
import { Id, MetaLink, named, nullable } from '../../http/http-schemas.js'

/** Required text: present, not empty (blank after trimming is refused too), at most `max`. */
const text = (max: number, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    description: `${description} Required, at most ${max} characters.`,
  })

/** Optional text: absent, null or blank all mean none. */
const optionalText = (max: number, description: string) =>
  Type.Optional(
    nullable(
      Type.String({ maxLength: max }),
      `${description} Optional (string or null), at most ${max} characters; blank means none.`,
    ),
  )

const phone = (description: string) =>
  Type.String({
    format: 'br-phone',
    maxLength: 20,
    description:
      `${description} Brazilian number with area code, at most 20 characters: mobile (area code + 9 digits) ` +
      'or landline (area code + 8 digits), optionally with +55 and separators. Stored and returned as bare digits.',
  })

const AddressInput = Type.Object(
  {
    zip_code: Type.String({
      format: 'cep',
      description: 'CEP: exactly 8 digits, bare (`01310100`) or formatted (`01310-100`). Returned bare.',
    }),
    street: text(255, 'Street.'),
    number: text(20, 'Building number, as a string (`"1000"`, `"S/N"`).'),
    complement: optionalText(255, 'Complement.'),
    neighborhood: text(100, 'Neighborhood.'),
    city: text(100, 'City.'),
    state: Type.String({
      format: 'br-state',
      description: 'Two-letter code of a Brazilian state (UF), any case (`sp`). Returned uppercase.',
    }),
  },
  { description: 'Address of the branch. Required.' },
)

const ResponsibleInput = Type.Object(
  {
    name: text(255, 'Full name of the person responsible for the branch.'),
    email: Type.String({
      format: 'email',
      maxLength: 255,
      description:
        'E-mail, at most 255 characters. Unique across the service regardless of case; stored and returned lowercase.',
    }),
    phone: phone('Phone of the responsible person.'),
    registration_number: Type.String({
      format: 'cpf',
      description:
        'CPF, bare or formatted; check digits verified, repeated-digit numbers (`111.111.111-11`) refused. ' +
        'Unique across the service; stored and returned bare.',
    }),
    role: optionalText(100, 'Job title.'),
    rg: optionalText(20, 'Identity document (RG) number.'),
  },
  { description: 'Person responsible for the branch. Required.' },
)

const BankInput = Type.Object(
  {
    name: text(255, 'Bank name.'),
    agency: text(20, 'Branch (agency) number.'),
    account: text(20, 'Account number.'),
    account_digit: text(20, 'Account check digit.'),
  },
  { description: 'Account for commission transfers. Required; stored, never returned by any endpoint.' },
)

export const ShopkeeperBody = Type.Object(
  {
    trading_name: text(255, 'Trading name of the branch.'),
    registration_number: Type.String({
      format: 'cnpj',
      description:
        'CNPJ of the branch: numeric or the alphanumeric form in force since July 2026 (letters in any case), ' +
        'bare or formatted; check digits verified. Unique across the service, matrix stores included (a ' +
        "partner's own CNPJ is taken by its matrix). Stored and returned bare, letters uppercase.",
    }),
    phone: phone('Phone of the branch.'),
    website: optionalText(255, 'Website address, as given (no scheme required).'),
    address: AddressInput,
    responsible: ResponsibleInput,
    bank: BankInput,
  },
  {
    description: 'Any other field (`id`, `matrix`, `partner_id`, …) is ignored.',
    examples: [
      {
        trading_name: 'Loja Centro',
        registration_number: '11.444.777/0001-61',
        phone: '(11) 3333-4444',
        website: 'https://lojacentro.example.com.br',
        address: {
          zip_code: '01310-100',
          street: 'Avenida Paulista',
          number: '1000',
          complement: 'Loja 3',
          neighborhood: 'Bela Vista',
          city: 'São Paulo',
          state: 'SP',
        },
        responsible: {
          name: 'Maria da Silva',
          email: 'maria@lojacentro.example.com.br',
          phone: '(11) 98765-4321',
          registration_number: '529.982.247-25',
          role: 'Gerente',
          rg: '12.345.678-9',
        },
        bank: { name: 'Banco do Brasil', agency: '1234', account: '56789', account_digit: '0' },
      },
    ],
  },
)

export type ShopkeeperBody = Static<typeof ShopkeeperBody>

const link = (id: number) => ({ link: `https://api.amparo.example/shopkeepers/${id}` })

export const CreatedShopkeeper = named(
  'CreatedShopkeeper',
  Type.Object(
    {
      id: Type.Integer({ description: 'Send it as `store_id` when contracting.' }),
      trading_name: Type.String(),
      registration_number: Type.String({ description: 'Bare CNPJ (alphanumeric letters uppercase).' }),
      matrix: Type.Literal(false, { description: 'Always false: a registered branch is never the matrix.' }),
      responsible: Type.Null({ description: 'Always null in the creation response (as the seed shows).' }),
      meta: MetaLink,
    },
    {
      examples: [
        {
          id: 12,
          trading_name: 'Loja Centro',
          registration_number: '11444777000161',
          matrix: false,
          responsible: null,
          meta: link(12),
        },
      ],
    },
  ),
)

const Address = Type.Object(
  {
    zip_code: Type.String({ description: '8 digits.' }),
    street: Type.String(),
    number: Type.String(),
    complement: Type.Union([Type.String(), Type.Null()]),
    neighborhood: Type.String(),
    city: Type.String(),
    state: Type.String({ description: 'Uppercase UF.' }),
  },
  { description: 'Null for the matrix store.' },
)

const Responsible = Type.Object(
  {
    name: Type.String(),
    email: Type.String({ description: 'Lowercase.' }),
    phone: Type.String({ description: 'Bare digits with area code.' }),
    registration_number: Type.String({ description: 'Bare CPF.' }),
    role: Type.Union([Type.String(), Type.Null()]),
    rg: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'Null for the matrix store.' },
)

export const Shopkeeper = named(
  'Shopkeeper',
  Type.Object(
    {
      id: Type.Integer({ description: 'Send it as `store_id` when contracting.' }),
      trading_name: Type.String(),
      registration_number: Type.Union([Type.String(), Type.Null()], {
        description: 'Bare CNPJ; null only for the matrix store of a partner registered without one.',
      }),
      matrix: Type.Boolean({ description: "True for the partner's own (matrix) store, false for a branch." }),
      phone: Type.Union([Type.String(), Type.Null()], { description: 'Bare digits; null for the matrix.' }),
      website: Type.Union([Type.String(), Type.Null()]),
      address: Type.Union([Address, Type.Null()]),
      responsible: Type.Union([Responsible, Type.Null()]),
      created_at: Type.String({ description: '`YYYY-MM-DD HH:MM:SS` in the service time zone.' }),
      meta: MetaLink,
    },
    {
      description: 'A store of the partner. Bank data is stored but never returned.',
      examples: [
        {
          id: 12,
          trading_name: 'Loja Centro',
          registration_number: '11444777000161',
          matrix: false,
          phone: '1133334444',
          website: 'https://lojacentro.example.com.br',
          address: {
            zip_code: '01310100',
            street: 'Avenida Paulista',
            number: '1000',
            complement: 'Loja 3',
            neighborhood: 'Bela Vista',
            city: 'São Paulo',
            state: 'SP',
          },
          responsible: {
            name: 'Maria da Silva',
            email: 'maria@lojacentro.example.com.br',
            phone: '11987654321',
            registration_number: '52998224725',
            role: 'Gerente',
            rg: '12.345.678-9',
          },
          created_at: '2026-11-21 09:00:00',
          meta: link(12),
        },
      ],
    },
  ),
)

export const ShopkeeperParams = Type.Object({ shopkeeperId: Id('Shopkeeper (store) id.', 1) })
