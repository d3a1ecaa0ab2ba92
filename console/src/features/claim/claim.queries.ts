import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { type Answer, ApiError, get, type Input, post } from '../../api/client'

export type DeskClaim = Answer<'getDeskClaim'>
export type ActivityEntry = DeskClaim['activity'][number]

/** A claim by the id in the screen's route. */
export const claimQuery = (id: string) =>
  queryOptions({ queryKey: ['claim', id], queryFn: () => get<DeskClaim>(`/api/claims/${id}`) })

export type Decision =
  | { action: 'approve'; body: Input<'approveDeskClaim'> }
  | { action: 'deny'; body: Input<'denyDeskClaim'> }
  | { action: 'settle'; body: Input<'settleDeskClaim'> }
  | { action: 'request-documents'; body: Input<'requestDeskClaimDocuments'> }

/**
 * The claim changed under the screen (409 `decision_conflict`: another operator decided first); it
 * carries the claim as read again, which already replaced the cached one.
 */
export class StaleClaimError extends Error {
  constructor(readonly claim: DeskClaim) {
    super('O sinistro mudou enquanto você decidia.')
  }
}

/** After a claim changed: the queue and the dashboard count it by status, read them again when next shown. */
function useClaimChanged(id: string) {
  const queryClient = useQueryClient()
  return (claim: DeskClaim) => {
    queryClient.setQueryData(claimQuery(id).queryKey, claim)
    void queryClient.invalidateQueries({ queryKey: ['claims'] })
    void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
  }
}

/**
 * Approves, denies, settles or asks for documents. Each answers the claim as its transaction left
 * it (approveDeskClaim, …), which replaces the cached one: no second GET. A 409 reads the claim
 * again and fails with StaleClaimError, so the page shows who decided first.
 */
export function useDecision(id: string) {
  const queryClient = useQueryClient()
  const changed = useClaimChanged(id)
  return useMutation({
    mutationFn: async ({ action, body }: Decision) => {
      try {
        return await post<DeskClaim>(`/api/claims/${id}/${action}`, body)
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 409) throw error
        const fresh = await queryClient.fetchQuery({ ...claimQuery(id), staleTime: 0 })
        changed(fresh)
        throw new StaleClaimError(fresh)
      }
    },
    onSuccess: changed,
  })
}

/** Assigns the claim (null: to nobody); its answer is the claim. */
export function useAssign(id: string) {
  const changed = useClaimChanged(id)
  return useMutation({
    mutationFn: (assigneeId: number | null) =>
      post<DeskClaim>(`/api/claims/${id}/assignee`, { assignee_id: assigneeId }),
    onSuccess: changed,
  })
}

/** Appends an internal note; the claim is read again for its activity. */
export function useAddNote(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: string) => post<Answer<'addDeskClaimNote'>>(`/api/claims/${id}/notes`, { body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: claimQuery(id).queryKey }),
  })
}
