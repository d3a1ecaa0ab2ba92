// Devices (docs/decisions.md, Devices): one active protection per device, its serial numbers and IMEIs compared
// without case, spaces or punctuation.

/**
 * The key a serial number or IMEI is compared by: its letters and digits (any script), uppercase.
 * `ABC-123 ` and `abc123` are one device; so are an IMEI written `49-015420-323751-8` and bare.
 * Empty when the input has no letter or digit.
 */
export function deviceKey(input: string): string {
  return input
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .toUpperCase()
}

/** Whether two serials name one device; blanks name none. */
export function sameDevice(a?: string | null, b?: string | null): boolean {
  if (!a || !b) return false
  const key = deviceKey(a)
  return key !== '' && key === deviceKey(b)
}

/** The refusal of a device that already has an active protection: it does not say whose. */
export function alreadyProtected(label: string): string {
  return `The ${label} already has an active protection. A device can be protected again once its current protection is canceled or has ended.`
}
