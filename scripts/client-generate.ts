// `npm run client:generate`: rewrites the client's committed types from the service's document.
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { CLIENT_SCHEMA_FILE, generateClientSchema } from './client-schema.js'

await writeFile(CLIENT_SCHEMA_FILE, await generateClientSchema())
console.log(`wrote ${fileURLToPath(CLIENT_SCHEMA_FILE)}`)
