import { type Static, Type } from 'typebox'
import { DOCUMENTED_ONLY } from '../../http/http-schemas.js'

const field = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }))

const pairOf = (first: string, second: string) => ({
  required: [first, second],
  properties: { [first]: { type: 'string' }, [second]: { type: 'string' } },
})

export const LoginBody = Type.Object(
  {
    client_id: field('Client id issued by support (`test_…` or `live_…`). Sent with `client_secret`.'),
    client_secret: field('Client secret. Confidential: never expose it in a frontend or in logs.'),
    email: field('Partner user e-mail, the alternative to the client pair. Sent with `password`.'),
    password: field('Partner user password.'),
  },
  {
    // One pair or the other, each of both fields; checked by the login itself so that a missing
    // half answers 422 under its own key. No body at all with `X-CREDENTIALS` or Basic.
    [DOCUMENTED_ONLY]: {
      anyOf: [pairOf('client_id', 'client_secret'), pairOf('email', 'password')],
    },
    examples: [{ client_id: 'test_5f2c0e9a7b1d4c3e8f6a2b1c', client_secret: 'Zx8…' }],
  },
)
export type LoginBody = Static<typeof LoginBody>

export const LoginResult = Type.Object(
  {
    access_token: Type.String({ description: 'Bearer token (JWT).' }),
    token: Type.String({ description: 'The same token, for clients written against the other login shape.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.String({
      description: 'When the token expires, `YYYY-MM-DD HH:MM:SS` in the service time zone.',
    }),
  },
  {
    examples: [
      {
        access_token: 'eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0…',
        token: 'eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0…',
        token_type: 'Bearer',
        expires_in: '2026-11-21 15:04:05',
      },
    ],
  },
)
