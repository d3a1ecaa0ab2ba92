import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { consoleError, csvAnswer, guardedErrors } from '../../console/console-schemas.js'
import { listAudit } from './audit.service.js'
import { AUDIT_CSV_HEADER, auditCsv } from './audit-export.service.js'
import {
  AuditPage,
  AuditQuery,
  NewOperatorBody,
  Operator,
  OperatorId,
  OperatorWithPassword,
} from './operator.schemas.js'
import { type Acting, createOperator, disableOperator, listOperators } from './operator.service.js'
import { resetPassword, resetSecondFactor } from './operator-credentials.service.js'

const acting = (request: FastifyRequest): Acting => ({
  actor: { id: request.operator.id, email: request.operator.email },
  ip: request.ip,
  now: request.server.clock.now(),
})

const notFound = consoleError('No such operator.', 'not_found')
const invalid = consoleError(
  'A field is missing or invalid, or the e-mail is taken.',
  'validation_failed',
  'invalid_state',
)

/** Operators (admin): list, create, disable, reset a password or a second factor. Every change is audited. */
export const operatorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/operators',
    {
      schema: {
        tags: ['Operators'],
        operationId: 'listOperators',
        summary: 'Every operator',
        response: { 200: Type.Object({ data: Type.Array(Operator) }), ...guardedErrors(false) },
      },
      config: { role: 'admin' },
    },
    async () => ({ data: await listOperators(app.db) }),
  )

  app.post(
    '/api/operators',
    {
      schema: {
        tags: ['Operators'],
        operationId: 'createOperator',
        summary: 'Create an operator; its one-time password is answered once',
        body: NewOperatorBody,
        response: { 201: OperatorWithPassword, 422: invalid, ...guardedErrors(true) },
      },
      config: { role: 'admin' },
    },
    async (request, reply) => {
      const created = await createOperator(app.db, request.body, acting(request))
      return reply.code(201).send(created)
    },
  )

  app.post(
    '/api/operators/:id/disable',
    {
      schema: {
        tags: ['Operators'],
        operationId: 'disableOperator',
        summary: 'Disable an operator: its sessions end at once',
        params: OperatorId,
        response: { 200: Operator, 404: notFound, 422: invalid, ...guardedErrors(true) },
      },
      config: { role: 'admin' },
    },
    async (request) => disableOperator(app.db, { id: request.params.id }, acting(request)),
  )

  app.post(
    '/api/operators/:id/reset-password',
    {
      schema: {
        tags: ['Operators'],
        operationId: 'resetOperatorPassword',
        summary: 'A new one-time password (answered once), to replace at the next sign-in; sessions end',
        description: 'The second factor stays as it is (`resetOperatorTotp` clears it).',
        params: OperatorId,
        response: { 200: OperatorWithPassword, 404: notFound, ...guardedErrors(true) },
      },
      config: { role: 'admin' },
    },
    async (request) => resetPassword(app.db, { id: request.params.id }, acting(request)),
  )

  app.post(
    '/api/operators/:id/reset-totp',
    {
      schema: {
        tags: ['Operators'],
        operationId: 'resetOperatorTotp',
        summary:
          'Clear the second factor (a lost phone): sessions end, TOTP is enrolled again at the next sign-in',
        description: 'The password stays as it is.',
        params: OperatorId,
        response: { 200: Operator, 404: notFound, ...guardedErrors(true) },
      },
      config: { role: 'admin' },
    },
    async (request) => resetSecondFactor(app.db, { id: request.params.id }, acting(request)),
  )

  app.get(
    '/api/audit',
    {
      schema: {
        tags: ['Audit'],
        operationId: 'listAudit',
        summary: 'The audit log, newest first',
        querystring: AuditQuery,
        response: { 200: AuditPage, 422: invalid, ...guardedErrors(false) },
      },
      config: { role: 'admin' },
    },
    async (request) => {
      const { page, per_page, action, operator } = request.query
      return listAudit(app.db, { action, operator }, page, per_page)
    },
  )

  app.get(
    '/api/audit.csv',
    {
      schema: {
        tags: ['Audit'],
        operationId: 'exportAudit',
        summary: 'The audit log as CSV, newest first (same filters)',
        querystring: Type.Omit(AuditQuery, ['page', 'per_page']),
        response: {
          200: csvAnswer('amparo-auditoria.csv', AUDIT_CSV_HEADER),
          422: invalid,
          ...guardedErrors(false),
        },
      },
      config: { role: 'admin' },
    },
    async (request, reply) => {
      const { action, operator } = request.query
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="amparo-auditoria.csv"')
        .send(Readable.from(auditCsv(app.db, { action, operator }, app.config.timeZone)))
    },
  )
}
