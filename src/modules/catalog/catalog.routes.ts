import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl, listPage } from '../../http/links.js'
import { PageOf, PageQuery } from '../../shared/pagination.js'
import { brandResource, modelResource, modelSummary } from './catalog.mapper.js'
import {
  Brand,
  BrandParams,
  BrandQuery,
  Model,
  ModelListQuery,
  ModelParams,
  ModelQuery,
} from './catalog.schemas.js'
import { brandPage, modelPage, showBrand, showModel } from './catalog.service.js'

const tags = ['Devices']

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/brands',
    {
      schema: {
        tags,
        operationId: 'listBrands',
        summary: 'List brands',
        description:
          'Brands with at least one model this partner may sell, by name. Paginated (15 per page).',
        querystring: PageQuery,
        response: { 200: PageOf(Brand), ...errorResponses(401, 422) },
      },
    },
    async (request) =>
      listPage(
        request,
        request.query,
        (offset, limit) => brandPage(app.db, request.partner.partnerId, offset, limit),
        brandResource,
      ),
  )

  app.get(
    '/brands/:brandId',
    {
      schema: {
        tags,
        operationId: 'getBrand',
        summary: 'Get a brand',
        description:
          '`include=models` attaches the models this partner may sell; `include=modelCount` attaches `models_count`; both may be combined with a comma.',
        params: BrandParams,
        querystring: BrandQuery,
        response: { 200: Brand, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const include = new Set(request.query.include?.split(','))
      const { brand, modelCount, models } = await showBrand(
        app.db,
        request.partner.partnerId,
        request.params.brandId,
        { models: include.has('models'), modelCount: include.has('modelCount') },
      )
      const base = baseUrl(request)
      const resource = brandResource(brand, base)
      if (modelCount !== undefined) resource.models_count = modelCount
      if (models) resource.models = models.map((m) => modelSummary(m, base))
      return resource
    },
  )

  app.get(
    '/models',
    {
      schema: {
        tags,
        operationId: 'listModels',
        summary: 'List models',
        description:
          'Models this partner may sell (attributed, available and active), by brand and name. Paginated (15 per page). `filter[brand]` and its alias `brand_id` restrict to one brand.',
        querystring: ModelListQuery,
        response: { 200: PageOf(Model), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { query } = request
      const filter = { name: query['filter[name]'], brandId: query['filter[brand]'] ?? query.brand_id }
      return listPage(
        request,
        query,
        (offset, limit) => modelPage(app.db, request.partner.partnerId, filter, offset, limit),
        modelResource,
      )
    },
  )

  app.get(
    '/models/:modelId',
    {
      schema: {
        tags,
        operationId: 'getModel',
        summary: 'Get a model',
        description: 'One model this partner may sell, with its brand.',
        params: ModelParams,
        querystring: ModelQuery,
        response: { 200: Model, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const model = await showModel(app.db, request.partner.partnerId, request.params.modelId)
      return modelResource(model, baseUrl(request))
    },
  )
}
