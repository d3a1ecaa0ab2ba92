// The words of the messages to the insured (README, Messages to the insured): each kind's subject,
// plain text and HTML, from plain values. Pure: no database, no clock.

export interface Content {
  subject: string
  text: string
  html: string
}

/** A paragraph of the text part, and its HTML. */
export type Paragraph = string | { text: string; link: string }

const escapeHtml = (value: string) =>
  value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')

/** "Olá, Maria." from the customer's name: the first word, as the person wrote it. */
export function greeting(name: string): string {
  const first = name.trim().split(/\s+/)[0]
  return first ? `Olá, ${first}.` : 'Olá.'
}

/**
 * A message from its subject and paragraphs: the text part with links on lines of their own, and
 * an HTML part that says the same, escaped.
 */
export function compose(subject: string, paragraphs: Paragraph[], signature: string): Content {
  const text = [...paragraphs.map((p) => (typeof p === 'string' ? p : `${p.text}\n${p.link}`)), signature]
  const html = paragraphs.map((p) =>
    typeof p === 'string'
      ? `<p>${escapeHtml(p)}</p>`
      : `<p>${escapeHtml(p.text)}<br><a href="${escapeHtml(p.link)}">${escapeHtml(p.link)}</a></p>`,
  )
  return {
    subject,
    text: `${text.join('\n\n')}\n`,
    html: `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>${html.join('')}<p>${escapeHtml(signature)}</p></body></html>`,
  }
}

const SIGNATURE = 'Amparo — proteção do seu aparelho'

/** The portal's sign-in code, the single-use link, or both. */
export function signInContent({ name, code, link }: { name: string; code?: string; link?: string }): Content {
  const paragraphs: Paragraph[] = [greeting(name)]
  if (code) paragraphs.push(`Seu código de acesso ao Portal do segurado é ${code}. Ele vale por 10 minutos.`)
  if (link)
    paragraphs.push({
      text: 'Para entrar no Portal do segurado, use este link (vale 24 horas, uma só vez):',
      link,
    })
  paragraphs.push('Se você não pediu este acesso, ignore esta mensagem: ninguém entra sem ele.')
  return compose(
    code ? `Seu código de acesso: ${code}` : 'Seu link de acesso ao Portal do segurado',
    paragraphs,
    SIGNATURE,
  )
}

export { SIGNATURE }

/** Reais as the API writes them (a JSON number) → `R$ 1.234,56`. */
export function reais(amount: number): string {
  const cents = Math.round(amount * 100)
  const whole = Math.floor(Math.abs(cents) / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.')
  return `${cents < 0 ? '-' : ''}R$ ${whole},${String(Math.abs(cents) % 100).padStart(2, '0')}`
}

/** `2026-11-21` or `2026-11-21 10:00:00` (service zone, as the API writes them) → `21/11/2026`. */
export function dateBr(value: string): string {
  const [year, month, day] = value.slice(0, 10).split('-')
  return `${day}/${month}/${year}`
}
