import { amountToCents, applyRateBp } from '../../shared/money.js'

// Pricing rules (README, Using the API: quotations), pure and in integer cents.

export interface LmiRange {
  /** Factors of the model's default LMI, in basis points (5000 = 0.5). */
  minFactorBp: number
  maxFactorBp: number
}

/** The partner's authorized LMI range for a model, in cents, both ends inclusive. */
export function authorizedLmiRange(defaultLmi: number, range: LmiRange): { min: number; max: number } {
  return { min: applyRateBp(defaultLmi, range.minFactorBp), max: applyRateBp(defaultLmi, range.maxFactorBp) }
}

/**
 * The LMI applied: the desired one (`maxima`, in cents) when it lies within the authorized range,
 * otherwise — absent, zero, negative, too low or too high — the model's default, never an error.
 */
export function applicableLmi(defaultLmi: number, range: LmiRange, maximaCents?: number): number {
  // A tiny default LMI can round its minimum down to 0 cents: an LMI of nothing is never applied.
  if (maximaCents === undefined || maximaCents <= 0) return defaultLmi
  const { min, max } = authorizedLmiRange(defaultLmi, range)
  return maximaCents >= min && maximaCents <= max ? maximaCents : defaultLmi
}

/** Past R$ 1 trillion no authorized range reaches, and the cents would outgrow exact integers. */
const MAXIMA_CEILING = 1_000_000_000_000

/**
 * `maxima` as the partner sent it (reais) → cents for `applicableLmi`; null when it is no amount:
 * more than two decimals (whatever its sign) or not finite. Zero and negative amounts keep their
 * sign and amounts past any range become infinite, so that `applicableLmi` gives all of them the
 * model's default instead of an error. Decimals are read by the money helper, never by float math.
 */
export function maximaToCents(maxima: number): number | null {
  if (!Number.isFinite(maxima)) return null
  if (maxima > MAXIMA_CEILING) return Number.POSITIVE_INFINITY
  if (maxima < -MAXIMA_CEILING) return Number.NEGATIVE_INFINITY
  if (maxima >= 0) return amountToCents(maxima)
  const cents = amountToCents(-maxima)
  return cents === null ? null : -cents
}

export interface SubscriptionRates {
  monthlyRateBp: number
  franchiseRateBp: number
}

/** Monthly premium and franchise (deductible) of a subscription plan for an LMI. */
export function subscriptionPrice(lmi: number, rates: SubscriptionRates) {
  return {
    monthlyPremium: applyRateBp(lmi, rates.monthlyRateBp),
    franchise: applyRateBp(lmi, rates.franchiseRateBp),
  }
}

export interface AnnualRates {
  annualRateBp: number
  usedFactorBp: number
}

const BP2 = 100_000_000n

/**
 * The annual premium: LMI × annual rate, × the used-device factor when the device is used.
 * One half-up rounding over the exact product, so the factor never compounds a rounding.
 */
export function annualPremium(lmi: number, rates: AnnualRates, used: boolean): number {
  if (!used) return applyRateBp(lmi, rates.annualRateBp)
  const product = BigInt(lmi) * BigInt(rates.annualRateBp) * BigInt(rates.usedFactorBp)
  return Number((product + BP2 / 2n) / BP2)
}
