import unhomoglyph from 'unhomoglyph'

// Devices (docs/decisions.md, Devices): one active protection per device, its serial numbers and IMEIs compared
// by a skeleton: without case, spaces or punctuation, whatever script their digits and look-alike
// letters are written in.

/**
 * A character outside ASCII as the ASCII it is confused with (UTS #39's confusables, through
 * `unhomoglyph`), in a key's form: the prototype `l` (of 1, I and l) is 1, `rn` (of m) is M.
 * A character with no ASCII look-alike stays itself, and the key refuses it.
 */
function lookAlike(char: string): string {
  return unhomoglyph(char).replace(/l/g, '1').replace(/rn/g, 'M')
}

const NOT_ASCII = /[^\p{ASCII}]/u
const NOT_ALPHANUMERIC = /[^A-Za-z0-9]+/g

/** Spaces, punctuation, controls and invisible format characters, and ASCII's symbols (`+`, `|`, `~`). */
const IGNORED = /[\p{White_Space}\p{P}\p{Cc}\p{Cf}$+<=>^`|~]/gu

/**
 * The ASCII digit of a decimal digit of any script: Unicode assigns each script's digits 0 to 9
 * in one run of ten code points, and such runs only ever follow one another whole.
 */
function asciiDigit(digit: string): string {
  const code = digit.codePointAt(0) as number
  let start = code
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--
  return String((code - start) % 10)
}

/**
 * The key a serial number or IMEI is compared by, or '' when it names no device. Every decimal
 * digit is read as its ASCII digit (`٣` is 3), compatibility forms as their plain ones (`Ａ`),
 * spaces and punctuation are dropped, letters that look like ASCII ones (Cyrillic `А`, Greek `Α`)
 * are read as those, and the result is uppercase with O as 0 and I as 1 (UTS #39 confuses them).
 * Anything else left (`序`, an emoji, `é`) makes it no device: a serial is ASCII letters and digits.
 */
export function deviceKey(input: string): string {
  // ASCII alone, as nearly every serial comes: no digit of another script, NFKC changes nothing,
  // and every character but a letter or digit is ignored; the same key, without Unicode's passes.
  if (!NOT_ASCII.test(input)) {
    return input.replace(NOT_ALPHANUMERIC, '').toUpperCase().replace(/O/g, '0').replace(/I/g, '1')
  }
  const plain = input
    .replace(/(?![0-9])\p{Nd}/gu, asciiDigit)
    .normalize('NFKC')
    .replace(IGNORED, '')
  let key = ''
  for (const char of plain) key += char < '\x80' ? char : lookAlike(char)
  key = key.toUpperCase().replace(/O/g, '0').replace(/I/g, '1')
  return /^[A-Z0-9]+$/.test(key) ? key : ''
}

/** Whether two serials name one device; blanks name none. */
export function sameDevice(a?: string | null, b?: string | null): boolean {
  if (!a || !b) return false
  const key = deviceKey(a)
  return key !== '' && key === deviceKey(b)
}

/** The refusal of a serial that names no device. */
export function notADevice(label: string): string {
  return `The ${label} must be Latin letters and digits (A-Z, 0-9); spaces and punctuation are ignored.`
}

/** The refusal of a device that already has an active protection: it does not say whose. */
export function alreadyProtected(label: string): string {
  return `The ${label} already has an active protection. A device can be protected again once its current protection is canceled or has ended.`
}
