// Set-up of every test file (vitest.config.ts): secrets and operator passwords hashed in the test
// process take a low scrypt cost. Each hash stores its parameters, so the app under test and any
// process a test spawns verify it as made; what those processes hash keeps the service's cost.
import { SECRET_HASH_PARAMS } from '../../src/modules/auth/secret-hash.js'
import { PASSWORD_HASH_PARAMS } from '../../src/modules/operators/password-hash.js'

Object.assign(SECRET_HASH_PARAMS, { N: 1024 })
Object.assign(PASSWORD_HASH_PARAMS, { N: 1024 })
