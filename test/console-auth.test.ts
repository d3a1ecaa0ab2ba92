import { describe, expect, it } from 'vitest'
import { consoleApp } from './helpers/console.js'

const ctx = consoleApp()

describe('the console guard', () => {
  it('answers 401 without a session and the operator with one', async () => {
    const anonymous = await ctx.console.inject({ method: 'GET', url: '/api/session' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().code).toBe('unauthenticated')
    const headers = await ctx.loginAs('viewer')
    const signedIn = await ctx.console.inject({ method: 'GET', url: '/api/session', headers })
    expect(signedIn.statusCode).toBe(200)
    expect(signedIn.json().operator.role).toBe('viewer')
  })
})
