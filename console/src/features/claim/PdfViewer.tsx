import { useEffect, useRef, useState } from 'react'
import type { PdfDocument } from './pdf-render'

// pdf.js is a module of its own, fetched the first time a claim has a PDF to show.
const pdfjs = () => import('./pdf-render')

type Loaded = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; doc: PdfDocument }

/**
 * A PDF drawn on canvas by pdf.js, page by page, never handed to the browser's own viewer: the
 * document's script has nowhere to run. Its text is under the page, for reading aloud or copying.
 */
export function PdfViewer({ url, title }: { url: string; title: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' })
  const [page, setPage] = useState(1)
  const [text, setText] = useState('')
  const canvas = useRef<HTMLCanvasElement>(null)

  useEffect(() => {
    let gone = false
    let doc: PdfDocument | undefined
    setLoaded({ status: 'loading' })
    setPage(1)
    ;(async () => {
      try {
        const [{ openPdf }, response] = await Promise.all([
          pdfjs(),
          fetch(url, { credentials: 'same-origin' }),
        ])
        if (!response.ok) throw new Error(`the document answered ${response.status}`)
        doc = await openPdf(new Uint8Array(await response.arrayBuffer()))
        if (gone) await doc.destroy()
        else setLoaded({ status: 'ready', doc })
      } catch {
        if (!gone) setLoaded({ status: 'failed' })
      }
    })()
    return () => {
      gone = true
      void doc?.destroy()
    }
  }, [url])

  useEffect(() => {
    const element = canvas.current
    if (loaded.status !== 'ready' || !element) return
    const abort = new AbortController()
    pdfjs()
      .then(({ drawPage }) => drawPage(loaded.doc, page, element, element.clientWidth || 400, abort.signal))
      .then((pageText) => {
        if (!abort.signal.aborted) setText(pageText)
      })
      .catch(() => {
        if (!abort.signal.aborted) setLoaded({ status: 'failed' })
      })
    return () => abort.abort()
  }, [loaded, page])

  const pages = loaded.status === 'ready' ? loaded.doc.numPages : 0
  return (
    <div className="pdf" data-testid="pdf-viewer" data-status={loaded.status}>
      {loaded.status === 'loading' ? <p className="muted">Abrindo o PDF…</p> : null}
      {loaded.status === 'failed' ? (
        <p className="muted">Não foi possível mostrar este PDF; baixe o arquivo para abri-lo.</p>
      ) : null}
      <canvas
        ref={canvas}
        role="img"
        aria-label={`${title}, página ${page} de ${pages}`}
        hidden={loaded.status !== 'ready'}
      />
      {pages > 1 ? (
        <div className="pdf-pages">
          <button
            type="button"
            className="btn btn-small"
            aria-label="Página anterior"
            disabled={page <= 1}
            onClick={() => setPage(page - 1)}
          >
            Anterior
          </button>
          <span aria-live="polite">
            Página {page} de {pages}
          </span>
          <button
            type="button"
            className="btn btn-small"
            aria-label="Próxima página"
            disabled={page >= pages}
            onClick={() => setPage(page + 1)}
          >
            Próxima
          </button>
        </div>
      ) : null}
      {loaded.status === 'ready' ? (
        <details className="pdf-text">
          <summary>Texto da página</summary>
          <p data-testid="pdf-text">{text || 'Esta página não tem texto (talvez seja uma imagem).'}</p>
        </details>
      ) : null}
    </div>
  )
}
