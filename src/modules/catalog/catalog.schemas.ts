import { type Static, Type } from 'typebox'
import { Id, MetaLink, named } from '../../http/http-schemas.js'
import { PageQuery } from '../../shared/pagination.js'

const link = (path: string) => ({ link: `https://api.amparo.example${path}` })

export const BrandRef = Type.Object({ id: Type.Integer(), name: Type.String(), meta: MetaLink })

export const ModelSummary = Type.Object({ id: Type.Integer(), name: Type.String(), meta: MetaLink })

export const Brand = named(
  'Brand',
  Type.Object(
    {
      id: Type.Integer(),
      name: Type.String(),
      meta: MetaLink,
      models_count: Type.Optional(
        Type.Integer({
          description: 'With `include=modelCount`: models of the brand this partner may sell.',
        }),
      ),
      models: Type.Optional(
        Type.Array(ModelSummary, {
          description: 'With `include=models`: every model of the brand this partner may sell.',
        }),
      ),
    },
    {
      examples: [
        {
          id: 1,
          name: 'Apple',
          meta: link('/brands/1'),
          models_count: 1,
          models: [{ id: 2, name: 'iPhone 16 Pro', meta: link('/models/2') }],
        },
      ],
    },
  ),
)
export type Brand = Static<typeof Brand>

export const Model = named(
  'Model',
  Type.Object(
    { id: Type.Integer(), name: Type.String(), brand: BrandRef, meta: MetaLink },
    {
      examples: [
        {
          id: 2,
          name: 'iPhone 16 Pro',
          brand: { id: 1, name: 'Apple', meta: link('/brands/1') },
          meta: link('/models/2'),
        },
      ],
    },
  ),
)

export const BrandParams = Type.Object({ brandId: Id('Brand id.', 1) })
export const ModelParams = Type.Object({ modelId: Id('Model id.', 2) })

export const BrandQuery = Type.Object({
  include: Type.Optional(
    Type.String({
      pattern: '^(models|modelCount)(,(models|modelCount))*$',
      description: '`models`, `modelCount`, or both separated by a comma.',
      examples: ['models,modelCount'],
    }),
  ),
})

const includeBrand = Type.Optional(
  Type.String({
    pattern: '^brand(,brand)*$',
    description: 'Accepted for compatibility: the brand is always included.',
  }),
)

export const ModelQuery = Type.Object({ include: includeBrand })

export const ModelListQuery = Type.Object({
  ...PageQuery.properties,
  include: includeBrand,
  'filter[name]': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Case-insensitive part of the model name.',
      examples: ['galaxy'],
    }),
  ),
  'filter[brand]': Type.Optional(Id('Only models of this brand.')),
  brand_id: Type.Optional(Id('Alias of `filter[brand]`.')),
})
