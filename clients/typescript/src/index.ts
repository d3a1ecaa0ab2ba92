export {
  type AmparoClient,
  type AmparoClientOptions,
  type ClaimDocumentUpload,
  createAmparoClient,
} from './client.js'
export { AmparoConnectionError, AmparoError, type AmparoErrorCode } from './errors.js'
export type {
  AnnualPlan,
  Claim,
  ClaimDocument,
  ClaimDocumentKind,
  Customer,
  Installment,
  Subscription,
} from './resources.js'
export type { components, operations, paths, webhooks } from './schema.js'
export {
  type AmparoEvent,
  type AmparoEventOf,
  type AmparoEventType,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js'
