/**
 * `Content-Disposition: attachment` naming `filename` (RFC 6266): a plain `filename` every client
 * reads, in printable ASCII (anything else, and quotes or backslashes, become `_`), and the exact
 * name as `filename*` in UTF-8, percent-encoded (RFC 8187), which browsers prefer.
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7E]|["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}
