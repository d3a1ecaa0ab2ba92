import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { type Answer, get, type Input, post } from '../../api/client'

export type DeskClaim = Answer<'getDeskClaim'>

/** A claim by the id in the screen's route. */
export const claimQuery = (id: string) =>
  queryOptions({ queryKey: ['claim', id], queryFn: () => get<DeskClaim>(`/api/claims/${id}`) })

export type Decision =
  | { action: 'approve'; body: Input<'approveDeskClaim'> }
  | { action: 'deny'; body: Input<'denyDeskClaim'> }
  | { action: 'settle'; body: Input<'settleDeskClaim'> }

/**
 * Approves, denies or settles the claim. Each answers the claim as its transaction left it
 * (approveDeskClaim, denyDeskClaim, settleDeskClaim), which replaces the cached one: no second GET.
 */
export function useDecision(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ action, body }: Decision) =>
      post<Answer<'approveDeskClaim'>>(`/api/claims/${id}/${action}`, body),
    onSuccess: (claim) => {
      queryClient.setQueryData(claimQuery(id).queryKey, claim)
      // The queue and the dashboard count the claim by status: read again when next shown.
      void queryClient.invalidateQueries({ queryKey: ['claims'] })
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
    },
  })
}
