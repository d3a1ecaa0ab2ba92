import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { commit } from '../../plugins/unit-of-work.js'
import { newCredentials } from '../partners/partner.service.js'
import { consoleAnswers } from './console.schemas.js'
import { actor } from './console-actor.js'
import {
  CredentialParams,
  IssuedCredential,
  NotifyInsuredBody,
  PartnerDetail,
  PartnerList,
  PartnerParams,
  RevokedCredential,
} from './partners.schemas.js'
import {
  issuePartnerCredential,
  listPartners,
  partnerDetail,
  revokePartnerCredential,
  switchNotifyInsured,
} from './partners.service.js'

const tags = ['Partners']

export const partnersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app

  app.get(
    '/api/partners',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'listConsolePartners',
        summary: 'Partners',
        description:
          'Every partner with its gateway mode and counts of active credentials, active plans and failing endpoints.',
        response: { 200: PartnerList, ...consoleAnswers(false) },
      },
    },
    async () => listPartners(db),
  )

  app.get(
    '/api/partners/:id',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'getConsolePartner',
        summary: 'A partner',
        description:
          'Gateway mode, credentials (never a secret), plans, and webhook endpoints (never their secrets) with their last 24 hours of deliveries and the failing ones.',
        params: PartnerParams,
        response: { 200: PartnerDetail, ...consoleAnswers(false, 404) },
      },
    },
    async (request) => partnerDetail(db, request.params.id, clock.now().toISOString()),
  )

  app.post(
    '/api/partners/:id/credentials',
    {
      config: { role: 'admin' },
      schema: {
        tags,
        operationId: 'issueConsoleCredential',
        summary: 'Issue client credentials',
        description:
          'As `amparo credentials issue`: the secret is in this answer only (kept hashed). Audited.',
        params: PartnerParams,
        response: { 201: IssuedCredential, ...consoleAnswers(true, 404) },
      },
    },
    async (request, reply) => {
      const credentials = await newCredentials(config.env)
      return commit(reply.code(201), (trx) =>
        issuePartnerCredential(
          trx,
          actor(request),
          request.params.id,
          credentials,
          clock.now().toISOString(),
        ),
      )
    },
  )

  app.delete(
    '/api/partners/:id/credentials/:credentialId',
    {
      config: { role: 'admin' },
      schema: {
        tags,
        operationId: 'revokeConsoleCredential',
        summary: 'Revoke client credentials',
        description:
          'As `amparo credentials revoke`: tokens issued with them stop working at once; revoking again changes nothing. Audited.',
        params: CredentialParams,
        response: { 200: RevokedCredential, ...consoleAnswers(true, 404) },
      },
    },
    async (request, reply) =>
      commit(reply, (trx) =>
        revokePartnerCredential(
          trx,
          actor(request),
          request.params.id,
          request.params.credentialId,
          clock.now().toISOString(),
        ),
      ),
  )

  app.post(
    '/api/partners/:id/notify-insured',
    {
      config: { role: 'admin' },
      schema: {
        tags,
        operationId: 'setConsoleNotifyInsured',
        summary: "Switch messages to the partner's customers",
        description:
          'As `amparo partner notify-insured`: off for a partner that writes to its customers itself (sign-in codes and links still go). Setting the value it has changes nothing. Audited. Answers the partner.',
        params: PartnerParams,
        body: NotifyInsuredBody,
        response: { 200: PartnerDetail, ...consoleAnswers(true, 404, 422) },
      },
    },
    async (request, reply) =>
      commit(reply, (trx) =>
        switchNotifyInsured(
          trx,
          actor(request),
          request.params.id,
          request.body.notify_insured,
          clock.now().toISOString(),
        ),
      ),
  )
}
