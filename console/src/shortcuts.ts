import { useEffect } from 'react'
import { navigate } from './router'

// The console's keys (README, Operator console): `/` the search, `j`/`k` and Enter in the claims
// queue. None acts while the operator types in a field or holds a modifier.

/** Whether a key pressed on `target` belongs to what has the focus (a field, a list box, an editor). */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)
}

/** A plain key: no modifier, not typed into a field. */
export function plainKey(event: KeyboardEvent): boolean {
  return !event.ctrlKey && !event.metaKey && !event.altKey && !typingIn(event.target)
}

const searchField = () => document.querySelector<HTMLInputElement>('input[type="search"]')

/** `/` focuses the search: Busca's field, opening Busca first from any other screen (signed in). */
export function useSearchKey(signedIn: boolean) {
  useEffect(() => {
    if (!signedIn) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || !plainKey(event)) return
      event.preventDefault()
      const field = searchField()
      if (field) {
        field.focus()
        return
      }
      navigate('/busca')
      // The screen renders on the next frames; the field is focused as soon as it is there.
      let frames = 120
      const focusWhenThere = () => {
        const there = searchField()
        if (there) there.focus()
        else if (--frames > 0) requestAnimationFrame(focusWhenThere)
      }
      requestAnimationFrame(focusWhenThere)
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [signedIn])
}
