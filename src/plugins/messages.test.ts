import { describe, expect, it } from 'vitest'
import { CONSOLE_ERROR_CODES, ERROR_CODES } from '../shared/errors.js'
import { CODE_MESSAGES } from './code-messages.js'
import { languageOf, localized, portugueseMessage } from './messages.js'

describe('the message catalogue', () => {
  it('has every code of the error-code lists (partner API and console) in English and in Portuguese', () => {
    const codes = [...Object.values(ERROR_CODES).flat(), ...Object.values(CONSOLE_ERROR_CODES).flat()]
    expect(Object.keys(CODE_MESSAGES).sort()).toEqual([...codes].sort())
    for (const code of codes) {
      const { en, pt } = CODE_MESSAGES[code]
      expect(en, code).toMatch(/\S/)
      expect(pt, code).toMatch(/\S/)
      expect(pt, code).not.toBe(en)
    }
  })

  it('translates the validation messages, field names kept, and names the IMEI check digit', () => {
    expect(portugueseMessage('The plan id field is required.', 'validation_failed')).toBe(
      'O campo plan id é obrigatório.',
    )
    expect(portugueseMessage('The per page field must not be greater than 100.', 'validation_failed')).toBe(
      'O campo per page não pode ser maior que 100.',
    )
    expect(
      portugueseMessage(
        'The imei field must be a valid IMEI: 15 digits, the last one a check digit (Luhn).',
        'validation_failed',
      ),
    ).toBe('O campo imei deve ser um IMEI válido: 15 dígitos, o último um dígito verificador (Luhn).')
    expect(portugueseMessage('Subscription not found.', 'not_found')).toBe('Assinatura não encontrada.')
    expect(portugueseMessage('Annual plan not found.', 'not_found')).toBe('Plano anual não encontrado.')
    expect(portugueseMessage('The document has already been taken.', 'validation_failed')).toBe(
      'O valor de document já está em uso.',
    )
  })

  it('falls back to the code’s Portuguese message for a message it does not know', () => {
    expect(portugueseMessage('The subscription is canceled: it cannot be paid.', 'invalid_state')).toBe(
      CODE_MESSAGES.invalid_state.pt,
    )
  })

  it('translates a body’s message and field errors, never its code or field keys', () => {
    const body = {
      code: 'validation_failed' as const,
      message: 'The name field is required. (and 1 more error)',
      errors: {
        name: ['The name field is required.'],
        'address.zipcode': ['The address.zipcode field is invalid.'],
      },
      request_id: 'r',
    }
    expect(localized(body, 'en')).toBe(body)
    expect(localized(body, 'pt-BR')).toEqual({
      code: 'validation_failed',
      message: 'O campo name é obrigatório. (e mais 1 erro)',
      errors: {
        name: ['O campo name é obrigatório.'],
        'address.zipcode': ['O campo address.zipcode é inválido.'],
      },
      request_id: 'r',
    })
  })
})

describe('languageOf (Accept-Language)', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['pt-BR', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['PT-br', 'pt-BR'],
    ['en-US,en;q=0.9', 'en'],
    ['fr-FR, pt-BR;q=0.5', 'pt-BR'],
    ['en;q=0.8, pt-BR;q=0.9', 'pt-BR'],
    ['pt-BR;q=0.8, en;q=0.9', 'en'],
    ['pt-BR;q=0', 'en'],
    ['*', 'en'],
    ['de', 'en'],
  ])('%s → %s', (header, language) => {
    expect(languageOf(header)).toBe(language)
  })
})
