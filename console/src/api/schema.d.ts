// Placeholder until the console's OpenAPI document exists: `npm run console:generate` overwrites it.
// biome-ignore lint/suspicious/noExplicitAny: placeholder
export type paths = Record<string, any>
export type components = Record<string, never>
