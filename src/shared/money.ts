// Money is integer cents everywhere inside the service; the API speaks reais as a JSON number with at
// most two decimals. Conversions go through the number's shortest decimal string (what JSON.parse
// produced it from), so binary floating point never decides how many decimals a value "really" has.

const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/
const RATE = /^(\d+)(?:\.(\d{1,4}))?$/
const BP_PER_UNIT = 10_000n

/** Integer cents → reais for JSON output (`2990` → `29.9`). */
export function centsToAmount(cents: number): number {
  assertSafeInteger(cents, 'cents')
  // Division by 100 is correctly rounded, so it lands on the same double as the literal "29.90".
  return cents / 100
}

/** Reais (at most two decimals, non-negative) → integer cents; null when not representable. */
export function amountToCents(value: number): number | null {
  return scaledInteger(value, AMOUNT, 2)
}

/**
 * `cents × rateBp / 10000`, rounded half-up to the cent. BigInt keeps the product exact even when
 * it passes 2^53 (1e9 cents × 10000 bp already does).
 */
export function applyRateBp(cents: number, rateBp: number): number {
  assertNonNegativeInteger(cents, 'cents')
  assertNonNegativeInteger(rateBp, 'rateBp')
  const product = BigInt(cents) * BigInt(rateBp)
  return Number((product + BP_PER_UNIT / 2n) / BP_PER_UNIT)
}

/** Decimal fraction → basis points (`0.0125` → `125`); null past four decimals, negative or not finite. */
export function rateToBp(rate: number): number | null {
  return scaledInteger(rate, RATE, 4)
}

// Reads `value` as a decimal with at most `decimals` places and returns it × 10^decimals, exactly.
function scaledInteger(value: number, pattern: RegExp, decimals: number): number | null {
  if (!Number.isFinite(value) || value < 0) return null
  // Exponent forms ("1e-7", "1e+21") fail the pattern: too many decimals or beyond safe integers anyway.
  const match = pattern.exec(String(value))
  if (!match) return null
  const whole = Number(match[1])
  const fraction = Number((match[2] ?? '').padEnd(decimals, '0'))
  const scaled = whole * 10 ** decimals + fraction
  return Number.isSafeInteger(scaled) ? scaled : null
}

function assertSafeInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`)
}

function assertNonNegativeInteger(value: number, name: string): void {
  assertSafeInteger(value, name)
  if (value < 0) throw new RangeError(`${name} must not be negative, got ${value}`)
}
