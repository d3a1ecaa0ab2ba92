import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { portugueseMessage } from './messages.js'
import { SERVICE_MESSAGES } from './service-messages.js'

// The service's own messages in Portuguese (README, Using the API: errors in Portuguese): every
// message thrown with its own wording, found in the sources, has a Portuguese text of its own
// rather than its code's general one.

/**
 * The errors that reach a client (shared/errors.ts AppError and its subclasses). Not
 * GatewayRefusedError: its argument is for the log, the client reads its fixed message. Not
 * NotFoundError: it names a resource (below).
 */
const APP_ERRORS = new Set([
  'AppError',
  'ValidationError',
  'StateError',
  'GatewayModeError',
  'ServiceUnavailableError',
  'GatewayUnavailableError',
  'PaymentInProgressError',
  'CardDeclinedError',
  'CardTestingLimitError',
  'ExpiredUnpaidError',
  'DecisionConflictError',
  'InvalidCredentialsError',
])

const SOURCES = ['src/modules', 'src/plugins', 'src/http', 'src/console', 'src/shared']

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

/**
 * The messages a file throws: the text arguments of an AppError (`new StateError('…')`,
 * `ValidationError.field(key, '…')`, `super(code, '…')` in a subclass) and what it assigns to
 * `errors.<field>`. A template's values become `x`, a constant of the same file its text.
 */
function thrownMessages(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const constants = new Map<string, ts.Expression>()
  const collectConstants = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      constants.set(node.name.text, node.initializer)
    ts.forEachChild(node, collectConstants)
  }
  collectConstants(source)
  const texts = (node: ts.Node): string[] => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text]
    if (ts.isTemplateExpression(node)) {
      // A value is `x`, a same-file constant its text, a choice between two texts each of them.
      const choices = (expression: ts.Expression): string[] => {
        if (ts.isParenthesizedExpression(expression)) return choices(expression.expression)
        if (ts.isStringLiteral(expression)) return [expression.text]
        if (ts.isTemplateExpression(expression)) return texts(expression)
        if (ts.isConditionalExpression(expression))
          return [...choices(expression.whenTrue), ...choices(expression.whenFalse)]
        const constant = ts.isIdentifier(expression) ? constants.get(expression.text) : undefined
        return constant && ts.isStringLiteral(constant) ? [constant.text] : ['x']
      }
      return node.templateSpans.reduce(
        (heads, span) =>
          heads.flatMap((head) => choices(span.expression).map((value) => head + value + span.literal.text)),
        [node.head.text],
      )
    }
    if (ts.isIdentifier(node)) {
      const constant = constants.get(node.text)
      return constant && (ts.isStringLiteral(constant) || ts.isTemplateExpression(constant))
        ? texts(constant)
        : []
    }
    // A call computes its text elsewhere; a function's body is not a message.
    if (ts.isCallExpression(node) || ts.isArrowFunction(node)) return []
    const found: string[] = []
    ts.forEachChild(node, (child) => {
      found.push(...texts(child))
    })
    return found
  }
  const extendsAppError = (node: ts.Node): boolean => {
    const owner = ts.findAncestor(node, ts.isClassDeclaration)
    const base = owner?.heritageClauses?.[0]?.types[0]?.expression
    return base !== undefined && APP_ERRORS.has(base.getText())
  }
  const messages: string[] = []
  const visit = (node: ts.Node) => {
    let args: readonly ts.Node[] = []
    if (ts.isNewExpression(node) && APP_ERRORS.has(node.expression.getText())) args = node.arguments ?? []
    else if (ts.isCallExpression(node) && node.expression.getText() === 'ValidationError.field')
      args = node.arguments.slice(1)
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.SuperKeyword &&
      extendsAppError(node)
    )
      args = node.arguments
    else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      /^errors(\.|\[)/.test(node.left.getText())
    )
      args = [node.right]
    // A code (`'not_found'`) is one word; a message is a sentence. A 404's is checked below.
    for (const arg of args)
      messages.push(...texts(arg).filter((text) => /\s/.test(text) && !text.endsWith(' not found.')))
    ts.forEachChild(node, visit)
  }
  visit(source)
  return messages
}

const fill = (template: string) => template.replace(/\{\{(\w+)(?::\w+)?\}\}/g, '<$1>')

/** Whether a message falls back to its code's general Portuguese message: it does for any code. */
const fallsBack = (message: string) =>
  portugueseMessage(message, 'validation_failed') !== portugueseMessage(message, 'server_error')

describe('the service’s own messages in Portuguese', () => {
  const thrown = [...new Set(SOURCES.flatMap(sourceFiles).flatMap(thrownMessages))]

  it('finds the messages the services throw', () => {
    expect(thrown.length).toBeGreaterThan(80)
    expect(thrown).toContain('The annual plan is canceled.')
    expect(thrown).toContain(
      'The subscription is x. A certificate is issued only for a contract in force: a subscription `pago`, an annual plan `paid` or `protected`.',
    )
  })

  it('gives each a Portuguese text of its own, not its code’s general one', () => {
    const untranslated = thrown.filter(
      (message) => fallsBack(message) || portugueseMessage(message, 'validation_failed') === message,
    )
    expect(untranslated).toEqual([])
  })

  it('names in Portuguese every resource a 404 names', () => {
    const named = SOURCES.flatMap(sourceFiles).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/new NotFoundError\('([^']+)'\)/g)].map(
        (m) => `${m[1]} not found.`,
      ),
    )
    expect(named.length).toBeGreaterThan(10)
    expect(named.filter(fallsBack)).toEqual([])
  })

  it.each(Object.entries(SERVICE_MESSAGES))('%s', (en, pt) => {
    expect(pt).not.toBe(en)
    expect(portugueseMessage(fill(en), 'invalid_state')).toBe(fill(pt))
  })
})
