/**
 * OpenAPI `links` along the main flows, so that stateful tools and readers can follow a contract
 * to its reads, installments and payment, an installment to its notification, and a cancellation
 * request to its confirmation. Keyed by operationId: the OpenAPI test checks that every target
 * exists and gets exactly its path parameters.
 */

type Link = { operationId: string; parameters: Record<string, string>; description: string }
type Links = Record<string, { status: string; links: Record<string, Link> }>

const subscription = (id: string) => ({
  GetSubscription: {
    operationId: 'getSubscription',
    parameters: { subscriptionId: id },
    description: 'The subscription.',
  },
  ListInstallments: {
    operationId: 'listInstallments',
    parameters: { subscriptionId: id },
    description: 'Its installments (their `id` is what notify-payment takes).',
  },
  PayFirstInstallmentByCard: {
    operationId: 'payFirstInstallmentByCard',
    parameters: { subscriptionId: id },
    description: 'Own-gateway partners: pay installment 1 by card.',
  },
  CancelSubscription: {
    operationId: 'cancelSubscription',
    parameters: { subscriptionId: id },
    description: 'Cancel it.',
  },
})

const annualPlan = (id: string) => ({
  GetAnnualPlan: { operationId: 'getAnnualPlan', parameters: { id }, description: 'The annual plan.' },
  PayAnnualPlanByCard: {
    operationId: 'payAnnualPlanByCard',
    parameters: { id },
    description: 'Own-gateway partners: pay it by card.',
  },
  NotifyAnnualPlanPayment: {
    operationId: 'notifyAnnualPlanPayment',
    parameters: { id },
    description: 'External-gateway partners: report its payment.',
  },
  RequestAnnualPlanCancellation: {
    operationId: 'requestAnnualPlanCancellation',
    parameters: { id },
    description: 'Request its cancellation (answers the protocol to confirm).',
  },
})

const LINKS: Links = {
  contractSubscription: { status: '201', links: subscription('$response.body#/id') },
  getSubscription: { status: '200', links: subscription('$request.path.subscriptionId') },
  listInstallments: {
    status: '200',
    links: {
      NotifyFirstInstallmentPayment: {
        operationId: 'notifyInstallmentPayment',
        parameters: { subscriptionId: '$request.path.subscriptionId', installmentId: '$response.body#/0/id' },
        description: 'External-gateway partners: report the payment of installment 1 (the first item).',
      },
    },
  },
  notifyInstallmentPayment: {
    status: '200',
    links: {
      GetSubscription: {
        operationId: 'getSubscription',
        parameters: { subscriptionId: '$request.path.subscriptionId' },
        description: 'The subscription, `pago` once installment 1 is paid.',
      },
    },
  },
  contractAnnualPlan: { status: '201', links: annualPlan('$response.body#/id') },
  getAnnualPlan: { status: '200', links: annualPlan('$request.path.id') },
  requestAnnualPlanCancellation: {
    status: '200',
    links: {
      ConfirmAnnualPlanCancellation: {
        operationId: 'confirmAnnualPlanCancellation',
        parameters: { id: '$request.path.id', protocol: '$response.body#/protocol' },
        description: 'Confirm the request by its protocol: the plan is canceled and its refund fixed.',
      },
    },
  },
  listEvents: {
    status: '200',
    links: {
      GetFirstEvent: {
        operationId: 'getEvent',
        parameters: { id: '$response.body#/data/0/id' },
        description: 'The first event of the page, by id.',
      },
      RedeliverFirstEvent: {
        operationId: 'redeliverEvent',
        parameters: { id: '$response.body#/data/0/id' },
        description: 'Delivers the first event of the page again.',
      },
    },
  },
  registerCustomer: {
    status: '201',
    links: {
      GetCustomerByDocument: {
        operationId: 'getCustomerByDocument',
        parameters: { document: '$response.body#/document' },
        description: 'The customer, by document.',
      },
    },
  },
  registerStore: {
    status: '201',
    links: {
      GetStore: {
        operationId: 'getStore',
        parameters: { shopkeeperId: '$response.body#/id' },
        description: 'The store.',
      },
    },
  },
}

type Operation = { operationId?: string; responses?: Record<string, { links?: Record<string, Link> }> }

/** Adds the links of LINKS to the responses of the document's operations (those it has). */
export function addLinks(paths: Record<string, Record<string, unknown>>): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      const entry = operation.operationId ? LINKS[operation.operationId] : undefined
      const response = entry && operation.responses?.[entry.status]
      if (response) response.links = { ...response.links, ...entry.links }
    }
  }
}
