import type { IncomingHttpHeaders } from 'node:http'
import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../shared/errors.js'
import type { LoginBody } from './auth.schemas.js'
import { type LoginCredentials, readLoginCredentials } from './login-credentials.js'

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const basic = (text: string) => `Basic ${b64(text)}`

const client = (clientId: string, clientSecret: string): LoginCredentials => ({
  kind: 'client',
  clientId,
  clientSecret,
})
const user = (email: string, password: string): LoginCredentials => ({ kind: 'user', email, password })
const malformed: LoginCredentials = { kind: 'malformed' }

/** The ValidationError thrown by readLoginCredentials, or a failure when nothing is thrown. */
function validationErrorOf(body: LoginBody, headers: IncomingHttpHeaders = {}): ValidationError {
  try {
    readLoginCredentials(body, headers)
  } catch (error) {
    if (error instanceof ValidationError) return error
    throw error
  }
  throw new Error('expected a ValidationError, nothing was thrown')
}

describe('readLoginCredentials', () => {
  describe('reads each of the four forms', () => {
    it.each<[string, LoginBody, IncomingHttpHeaders, LoginCredentials]>([
      [
        'the body client pair',
        { client_id: 'test_a', client_secret: 's3cr3t' },
        {},
        client('test_a', 's3cr3t'),
      ],
      [
        'the body email and password',
        { email: 'ana@x.com', password: 'pw123456' },
        {},
        user('ana@x.com', 'pw123456'),
      ],
      [
        'X-CREDENTIALS base64(id:secret)',
        {},
        { 'x-credentials': b64('test_b:hdr') },
        client('test_b', 'hdr'),
      ],
      [
        'X-CREDENTIALS surrounded by blanks',
        {},
        { 'x-credentials': `  ${b64('test_b:hdr')}  ` },
        client('test_b', 'hdr'),
      ],
      ['Authorization: Basic', {}, { authorization: basic('test_c:bas') }, client('test_c', 'bas')],
      [
        'Authorization: basic (scheme in any case)',
        {},
        { authorization: `basic ${b64('test_c:bas')}` },
        client('test_c', 'bas'),
      ],
      [
        'base64 without padding',
        {},
        { 'x-credentials': b64('test_d:ab').replace(/=+$/, '') },
        client('test_d', 'ab'),
      ],
    ])('%s', (_name, body, headers, expected) => {
      expect(readLoginCredentials(body, headers)).toEqual(expected)
    })
  })

  describe('applies the contract order of precedence', () => {
    const allHeaders = {
      'x-credentials': b64('test_hdr:x-secret'),
      authorization: basic('test_basic:basic-secret'),
    }

    it.each<[string, LoginBody, IncomingHttpHeaders, LoginCredentials]>([
      [
        'the body client pair beats both headers',
        { client_id: 'test_body', client_secret: 'body-secret' },
        allHeaders,
        client('test_body', 'body-secret'),
      ],
      [
        'the body client pair beats the body email and password',
        { client_id: 'test_body', client_secret: 'body-secret', email: 'ana@x.com', password: 'pw123456' },
        {},
        client('test_body', 'body-secret'),
      ],
      [
        'the body email and password beat both headers',
        { email: 'ana@x.com', password: 'pw123456' },
        allHeaders,
        user('ana@x.com', 'pw123456'),
      ],
      ['X-CREDENTIALS beats Authorization: Basic', {}, allHeaders, client('test_hdr', 'x-secret')],
      [
        'a blank X-CREDENTIALS leaves the turn to Authorization: Basic',
        {},
        { 'x-credentials': '   ', authorization: basic('test_basic:basic-secret') },
        client('test_basic', 'basic-secret'),
      ],
    ])('%s', (_name, body, headers, expected) => {
      expect(readLoginCredentials(body, headers)).toEqual(expected)
    })
  })

  describe('refuses missing halves with a ValidationError naming them', () => {
    it.each<[string, LoginBody, IncomingHttpHeaders, string[]]>([
      ['client_id without client_secret', { client_id: 'test_a' }, {}, ['client_secret']],
      ['client_secret without client_id', { client_secret: 's3cr3t' }, {}, ['client_id']],
      ['an empty client_id', { client_id: '', client_secret: 's3cr3t' }, {}, ['client_id']],
      ['both client fields empty', { client_id: '', client_secret: '' }, {}, ['client_id', 'client_secret']],
      ['email without password', { email: 'ana@x.com' }, {}, ['password']],
      ['password without email', { password: 'pw123456' }, {}, ['email']],
      ['an empty password', { email: 'ana@x.com', password: '' }, {}, ['password']],
      ['nothing at all', {}, {}, ['client_id', 'client_secret']],
      [
        'only a Bearer Authorization header',
        {},
        { authorization: 'Bearer abc.def.ghi' },
        ['client_id', 'client_secret'],
      ],
      [
        'an incomplete body pair, even with a valid header (the body is not completed from headers)',
        { client_id: 'test_a' },
        { 'x-credentials': b64('test_hdr:x-secret') },
        ['client_secret'],
      ],
    ])('%s', (_name, body, headers, keys) => {
      const error = validationErrorOf(body, headers)
      expect(error.statusCode).toBe(422)
      expect(Object.keys(error.errors ?? {}).sort()).toEqual(keys)
      for (const key of keys) {
        expect(error.errors?.[key]).toEqual([`The ${key.replace(/_/g, ' ')} field is required.`])
      }
    })

    it('summarises several missing fields Laravel style', () => {
      expect(validationErrorOf({}).message).toBe('The client id field is required. (and 1 more error)')
    })
  })

  describe('treats an undecodable credentials header as malformed', () => {
    it.each<[string, string]>([
      ['no colon', b64('test_a-secret')],
      ['an empty client id', b64(':secret')],
      ['an empty secret', b64('test_a:')],
      ['only a colon', b64(':')],
      ['text that is not base64', 'not base64!'],
      ['the pair sent unencoded', 'test_a:secret'],
      [
        'base64 with a stray character (lenient decoders would read test_a:secret)',
        `${b64('test_a:secret').slice(0, 4)}!${b64('test_a:secret').slice(4)}`,
      ],
    ])('X-CREDENTIALS with %s', (_name, value) => {
      expect(readLoginCredentials({}, { 'x-credentials': value })).toEqual(malformed)
    })

    it.each<[string, string]>([
      ['no colon', basic('test_a-secret')],
      ['an empty client id', basic(':secret')],
      ['an empty secret', basic('test_a:')],
      ['text that is not base64', 'Basic %%%%'],
    ])('Authorization: Basic with %s', (_name, value) => {
      expect(readLoginCredentials({}, { authorization: value })).toEqual(malformed)
    })

    it('does not fall back to Basic when X-CREDENTIALS is present but malformed', () => {
      const headers = { 'x-credentials': b64('no-colon'), authorization: basic('test_basic:basic-secret') }
      expect(readLoginCredentials({}, headers)).toEqual(malformed)
    })
  })

  describe('splits the pair at the first colon', () => {
    it.each<[string, IncomingHttpHeaders]>([
      ['X-CREDENTIALS', { 'x-credentials': b64('test_a:se:cr:et:') }],
      ['Authorization: Basic', { authorization: basic('test_a:se:cr:et:') }],
    ])('%s keeps every colon of the secret', (_name, headers) => {
      expect(readLoginCredentials({}, headers)).toEqual(client('test_a', 'se:cr:et:'))
    })

    it('decodes UTF-8 secrets', () => {
      expect(readLoginCredentials({}, { 'x-credentials': b64('test_a:sênha€') })).toEqual(
        client('test_a', 'sênha€'),
      )
    })
  })
})
