/// <reference types="vite/client" />
import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist'
// The worker is a file of the console's own build (no CDN): the CSP's worker-src 'self' admits it.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url'

GlobalWorkerOptions.workerSrc = workerUrl

export type PdfDocument = PDFDocumentProxy

/**
 * A partner's PDF, parsed by pdf.js and nothing else: its JavaScript never runs (no scripting
 * bundle is loaded, eval is off), no XFA form, no WebAssembly (the CSP admits none), and fonts
 * not embedded fall back to the system's (docs/decisions.md, "Claim documents").
 */
export function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  return getDocument({
    data: bytes,
    isEvalSupported: false,
    enableXfa: false,
    useWasm: false,
    stopAtErrors: false,
  }).promise
}

/** Draws page `number` (1-based) on `canvas`, `cssWidth` pixels wide at the screen's density, and
 * answers its text; `signal` cancels a drawing overtaken by another page. */
export async function drawPage(
  doc: PdfDocument,
  number: number,
  canvas: HTMLCanvasElement,
  cssWidth: number,
  signal: AbortSignal,
): Promise<string> {
  const page = await doc.getPage(number)
  const unscaled = page.getViewport({ scale: 1 })
  const density = window.devicePixelRatio || 1
  const viewport = page.getViewport({ scale: (cssWidth / unscaled.width) * density })
  canvas.width = Math.floor(viewport.width)
  canvas.height = Math.floor(viewport.height)
  const task = page.render({ canvas, viewport })
  signal.addEventListener('abort', () => task.cancel(), { once: true })
  await task.promise
  const content = await page.getTextContent()
  return content.items
    .map((item) => ('str' in item ? item.str : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
}
