// What no text of this service may hold, whichever way it arrives (an HTTP body, a catalog file).

/**
 * Control characters other than tab, line feed and carriage return: no input is text with them,
 * and PostgreSQL cannot store NUL at all.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
export const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/** Any control character, line breaks and tab included: for one-line text such as a name. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
export const ANY_CONTROL_CHARACTER = /[\u0000-\u001F\u007F]/

/**
 * Half of a surrogate pair alone: JSON may escape one (`"\ud800"`), which is no character, and the
 * databases store it differently (PostgreSQL as one U+FFFD, SQLite as three bytes read back as
 * three), so such text is refused rather than stored as something else than what was sent.
 */
export const LONE_SURROGATE = /\p{Cs}/u

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks): they reorder how text around
 * them is shown, so a name holding one can read as something else on a partner's screen or in a
 * log ("Trojan Source"). No name or description needs them: text in any script shows without.
 */
export const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/

/** Any of the three above, in one pass: the check every request's text goes through first. */
export const UNACCEPTABLE_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]|\p{Cs}/u

/**
 * The words of a person's name as the console's search compares them (docs/decisions.md, "Search
 * by name"): without accents, lowercase, letters and digits only ("José da Silva-Araújo" → `jose`,
 * `da`, `silva`, `araujo`), each once.
 */
export function nameWords(name: string): string[] {
  const plain = name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
  return [...new Set(plain.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0))]
}
