export { type AmparoClient, type AmparoClientOptions, createAmparoClient } from './client.js'
export { AmparoConnectionError, AmparoError, type AmparoErrorCode } from './errors.js'
export type { components, operations, paths } from './schema.js'
export { type AmparoEvent, verifyWebhook, type WebhookHeaders, WebhookVerificationError } from './webhooks.js'
