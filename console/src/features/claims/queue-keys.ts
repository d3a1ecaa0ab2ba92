import { type FocusEvent, useEffect, useRef, useState } from 'react'
import { navigate } from '../../router'
import { plainKey } from '../../shortcuts'

const INTERACTIVE = 'a, button, input, select, textarea, summary, [contenteditable="true"]'

/**
 * `j`/`k` select the next or previous claim of the queue (its row `aria-selected`, the focus on its
 * link, so Enter opens it); Enter elsewhere on the screen opens the selected claim. Focusing a row's
 * link by Tab or click selects it too, so `j` goes on from there. The rows carry `data-claim`.
 */
export function useQueueKeys(ids: number[]) {
  const [selected, setSelected] = useState<number | null>(null)
  const tableRef = useRef<HTMLTableElement>(null)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!plainKey(event)) return
      if ((event.key === 'j' || event.key === 'k') && ids.length > 0) {
        event.preventDefault()
        const at = selected === null ? -1 : ids.indexOf(selected)
        const step = event.key === 'j' ? 1 : -1
        const next = ids[at < 0 ? 0 : Math.min(ids.length - 1, Math.max(0, at + step))] as number
        setSelected(next)
        tableRef.current?.querySelector<HTMLElement>(`tr[data-claim="${next}"] a`)?.focus()
      } else if (event.key === 'Enter' && selected !== null && ids.includes(selected)) {
        if (event.target instanceof Element && event.target.closest(INTERACTIVE)) return
        event.preventDefault()
        navigate(`/sinistros/${selected}`)
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [ids, selected])
  const onFocus = (event: FocusEvent<HTMLTableElement>) => {
    const row = event.target.closest<HTMLElement>('tr[data-claim]')
    if (row) setSelected(Number(row.dataset.claim))
  }
  return { selected, tableRef, onFocus }
}
