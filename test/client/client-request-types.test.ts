import { describe, expect, it } from 'vitest'
import type { AmparoClient, paths } from '../../clients/typescript/src/index.js'
import { useTestApp } from '../helpers/test-app.js'

// The client's request types refuse what the API refuses, checked by the compiler (`tsc --noEmit`,
// `npm run typecheck`, covers this file): each `@ts-expect-error` fails the type-check when the
// line under it compiles. Nothing here is sent: the calls are never made.

type WriteMethod = 'post' | 'put' | 'patch' | 'delete'
/** `POST /subscriptions`, … : every write operation of the generated paths. */
type WriteOperation = {
  [P in keyof paths]: {
    [M in WriteMethod]: paths[P][M] extends undefined ? never : `${Uppercase<M>} ${P}`
  }[WriteMethod]
}[keyof paths]

const ctx = useTestApp()
declare const amparo: AmparoClient
const card = { number: '4111111111111111', holder: 'MARIA DA SILVA', expiry: '12/30', cvv: '123' }

/**
 * What a partner could get wrong, one case for each write operation: a new operation fails the
 * type-check until it has its own.
 */
const nonsense: Record<WriteOperation, () => unknown> = {
  'POST /auth/login': () => {
    // @ts-expect-error half of the client pair
    void amparo.POST('/auth/login', { body: { client_id: 'test_x' } })
    // @ts-expect-error half of each pair is neither pair
    void amparo.POST('/auth/login', { body: { client_id: 'test_x', password: 'p' } })
    // @ts-expect-error a secret is a string
    void amparo.POST('/auth/login', { body: { client_id: 'test_x', client_secret: 1 } })
  },
  'POST /customers': () =>
    // @ts-expect-error no document, e-mail nor phone
    amparo.POST('/customers', { body: { name: 'Maria da Silva' } }),
  'POST /shopkeepers': () =>
    // @ts-expect-error no address, responsible nor bank
    amparo.POST('/shopkeepers', { body: { trading_name: 'Loja', registration_number: '1', phone: '1' } }),
  'POST /subscriptions': () => {
    // @ts-expect-error a customer alone is no contract: no model nor plan
    void amparo.POST('/subscriptions', { body: { customer_id: 1 } })
    // @ts-expect-error model ids are numbers
    void amparo.POST('/subscriptions', { body: { customer_id: 1, model_id: 'ten', plan_id: 1 } })
    // @ts-expect-error no customer
    void amparo.POST('/subscriptions', { body: { model_id: 10, plan_id: 1 } })
    // @ts-expect-error a null customer is not one
    void amparo.POST('/subscriptions', { body: { customer_id: null, model_id: 10, plan_id: 1 } })
  },
  'PATCH /subscriptions/{subscriptionId}': () =>
    amparo.PATCH('/subscriptions/{subscriptionId}', {
      params: { path: { subscriptionId: 1 } },
      // @ts-expect-error a serial number is a string
      body: { serial_number: 356_938_035_643_809 },
    }),
  'POST /subscriptions/{subscriptionId}/installments/{installmentId}/notify-payment': () =>
    amparo.POST('/subscriptions/{subscriptionId}/installments/{installmentId}/notify-payment', {
      // @ts-expect-error which installment
      params: { path: { subscriptionId: 1 } },
    }),
  'POST /subscriptions/{subscriptionId}/payment': () =>
    amparo.POST('/subscriptions/{subscriptionId}/payment', {
      params: { path: { subscriptionId: 1 } },
      // @ts-expect-error no card
      body: {},
    }),
  'PUT /subscriptions/{subscriptionId}/card': () =>
    amparo.PUT('/subscriptions/{subscriptionId}/card', {
      params: { path: { subscriptionId: 1 } },
      // @ts-expect-error the card is an object
      body: { creditCard: card.number },
    }),
  'POST /subscriptions/{subscriptionId}/cancellation': () =>
    amparo.POST('/subscriptions/{subscriptionId}/cancellation', {
      params: { path: { subscriptionId: 1 } },
      // @ts-expect-error a reason is text
      body: { reason: 3 },
    }),
  'POST /annual-plans': () => {
    // @ts-expect-error a customer alone is no contract: no model nor IMEI
    void amparo.POST('/annual-plans', { body: { customer_id: 1 } })
    // @ts-expect-error model ids are numbers
    void amparo.POST('/annual-plans', { body: { customer_id: 1, model_id: 'ten', imei: '356938035643809' } })
    // @ts-expect-error no customer
    void amparo.POST('/annual-plans', { body: { model_id: 10, imei: '356938035643809' } })
  },
  'POST /annual-plans/{id}/payment': () =>
    amparo.POST('/annual-plans/{id}/payment', {
      params: { path: { id: 1 } },
      // @ts-expect-error no expiry nor CVV
      body: { card_number: card.number },
    }),
  'POST /annual-plans/{id}/notify-payment': () =>
    amparo.POST('/annual-plans/{id}/notify-payment', {
      // @ts-expect-error ids are numbers
      params: { path: { id: 'one' } },
    }),
  'PUT /annual-plans/{id}/cancellation': () =>
    amparo.PUT('/annual-plans/{id}/cancellation', {
      params: { path: { id: 1 } },
      // @ts-expect-error a reason is text
      body: { reason: 3 },
    }),
  'POST /annual-plans/{id}/cancellation/{protocol}': () =>
    amparo.POST('/annual-plans/{id}/cancellation/{protocol}', {
      // @ts-expect-error which protocol
      params: { path: { id: 1 } },
    }),
  'POST /claims': () => {
    const loss = {
      type: 'robbery',
      occurred_at: '2026-11-20 21:30:00',
      description: 'Roubado no metrô.',
    } as const
    // @ts-expect-error no contract
    void amparo.POST('/claims', { body: loss })
    // @ts-expect-error a loss falls under one contract, not two
    void amparo.POST('/claims', { body: { ...loss, subscription_id: 1, annual_plan_id: 2 } })
    // @ts-expect-error not a peril
    void amparo.POST('/claims', { body: { ...loss, subscription_id: 1, type: 'lost' } })
  },
  'POST /claims/{id}/withdraw': () =>
    // @ts-expect-error which claim
    amparo.POST('/claims/{id}/withdraw', {}),
  'POST /claims/{id}/documents': () =>
    amparo.POST('/claims/{id}/documents', {
      params: { path: { id: 1 } },
      // @ts-expect-error not a kind of document
      body: { kind: 'selfie', file: '' },
    }),
  'POST /webhook-endpoints': () =>
    // @ts-expect-error no address
    amparo.POST('/webhook-endpoints', { body: { events: ['ping'] } }),
  'PATCH /webhook-endpoints/{id}': () =>
    amparo.PATCH('/webhook-endpoints/{id}', {
      params: { path: { id: 1 } },
      // @ts-expect-error enabled or disabled
      body: { status: 'paused' },
    }),
  'DELETE /webhook-endpoints/{id}': () =>
    amparo.DELETE('/webhook-endpoints/{id}', {
      // @ts-expect-error ids are numbers
      params: { path: { id: 'one' } },
    }),
  'POST /webhook-endpoints/{id}/rotate-secret': () =>
    // @ts-expect-error which endpoint
    amparo.POST('/webhook-endpoints/{id}/rotate-secret', {}),
  'POST /webhook-endpoints/{id}/ping': () =>
    // @ts-expect-error which endpoint
    amparo.POST('/webhook-endpoints/{id}/ping', {}),
  'POST /events/{id}/redeliver': () =>
    amparo.POST('/events/{id}/redeliver', {
      // @ts-expect-error event ids are numbers
      params: { path: { id: { evt: 1 } } },
    }),
  'POST /sandbox/clock/advance': () => {
    // @ts-expect-error days or hours, not both
    void amparo.POST('/sandbox/clock/advance', { body: { days: 1, hours: 2 } })
    // @ts-expect-error neither
    void amparo.POST('/sandbox/clock/advance', { body: {} })
    // @ts-expect-error days are a number
    void amparo.POST('/sandbox/clock/advance', { body: { days: 'ten' } })
  },
  'POST /sandbox/claims/{id}/decision': () =>
    amparo.POST('/sandbox/claims/{id}/decision', {
      params: { path: { id: 1 } },
      // @ts-expect-error approved or denied
      body: { outcome: 'maybe' },
    }),
  'POST /sandbox/claims/{id}/settle': () =>
    amparo.POST('/sandbox/claims/{id}/settle', {
      params: { path: { id: 1 } },
      // @ts-expect-error a reference is text
      body: { reference: 7 },
    }),
  'POST /subscriptions/{subscriptionId}/installments/{installmentId}/pix': () =>
    amparo.POST('/subscriptions/{subscriptionId}/installments/{installmentId}/pix', {
      // @ts-expect-error which installment
      params: { path: { subscriptionId: 1 } },
    }),
  'POST /annual-plans/{id}/pix': () =>
    amparo.POST('/annual-plans/{id}/pix', {
      // @ts-expect-error a plan's id is a number
      params: { path: { id: 'AMP-2026-000001' } },
    }),
  'POST /annual-plans/{id}/boleto': () =>
    amparo.POST('/annual-plans/{id}/boleto', {
      // @ts-expect-error which plan
      params: { path: {} },
    }),
  'POST /sandbox/payments/{id}/pay': () =>
    amparo.POST('/sandbox/payments/{id}/pay', {
      // @ts-expect-error a payment's id is a number
      params: { path: { id: 'pix' } },
    }),
  'POST /stripe/webhooks': () =>
    amparo.POST('/stripe/webhooks', {
      // @ts-expect-error an event has an id, a type and its object
      body: { type: 'payment_intent.succeeded' },
    }),
}

/** What a partner writes compiles: the refusals above are about the nonsense, not the call. */
const sense = () => [
  amparo.POST('/auth/login', { body: { client_id: 'test_x', client_secret: 's' } }),
  amparo.POST('/auth/login', { body: { email: 'a@b.c', password: 'p' } }),
  amparo.POST('/subscriptions', { body: { customer_id: 1, model_id: 10, plan_id: 1 } }),
  amparo.POST('/subscriptions', { body: { customer_document: '529.982.247-25', model_id: 10, plan_id: 1 } }),
  amparo.POST('/annual-plans', { body: { customer_id: 1, model_id: 10, imei: '356938035643809' } }),
  amparo.POST('/sandbox/clock/advance', { body: { days: 31 } }),
  amparo.POST('/sandbox/clock/advance', { body: { hours: 2 } }),
  amparo.POST('/claims', {
    body: {
      annual_plan_id: 1,
      type: 'accidental_damage',
      occurred_at: '2026-11-20 21:30:00',
      description: 'Caiu.',
    },
  }),
]

describe('the client’s request types', () => {
  it('have a refusal for every write operation the service serves', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const served = Object.entries(document.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(Object.keys(nonsense).sort()).toEqual(served.sort())
    expect(sense).toBeTypeOf('function')
  })
})
