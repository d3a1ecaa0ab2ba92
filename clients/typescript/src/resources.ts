import type { components } from './schema.js'

// The main resources by name, as the API answers them (the OpenAPI document's components.schemas).
export type Subscription = components['schemas']['Subscription']
export type Installment = components['schemas']['Installment']
export type AnnualPlan = components['schemas']['AnnualPlan']
export type Claim = components['schemas']['Claim']
export type Customer = components['schemas']['Customer']
export type ClaimDocument = components['schemas']['ClaimDocument']
export type ClaimDocumentKind = ClaimDocument['kind']
