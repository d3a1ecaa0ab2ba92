import { type FormEvent, useRef, useState } from 'react'
import { ErrorBox } from '../../ui'
import { useAddNote } from './claim.queries'

const NOTE_MAX = 2000

/** The form of an internal note: the partner never sees it; it joins the claim's activity. */
export function ClaimNoteForm({ id }: { id: string }) {
  const [body, setBody] = useState('')
  const add = useAddNote(id)
  const fieldRef = useRef<HTMLTextAreaElement>(null)

  async function submit(e: FormEvent) {
    e.preventDefault()
    if (body.trim() === '') return
    try {
      await add.mutateAsync(body)
      setBody('')
      // The button is disabled while the note is saved: the focus goes back to the empty field.
      fieldRef.current?.focus()
    } catch {
      // Shown from the mutation's error.
    }
  }

  return (
    <form className="stack note-form" onSubmit={submit} aria-labelledby="h-note">
      <h3 id="h-note">Nova nota interna</h3>
      <ErrorBox error={add.error} />
      <label>
        <span className="sr-only">Nota interna</span>
        <textarea
          ref={fieldRef}
          name="note"
          rows={2}
          required
          maxLength={NOTE_MAX}
          value={body}
          placeholder="Visível só para a equipe"
          onChange={(e) => setBody(e.target.value)}
        />
      </label>
      <button type="submit" className="btn" disabled={add.isPending || body.trim() === ''}>
        {add.isPending ? 'Salvando…' : 'Adicionar nota'}
      </button>
    </form>
  )
}
