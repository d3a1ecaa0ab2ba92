import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { type Answer, del, get, post } from '../../api/client'

export type ConsolePartner = Answer<'getConsolePartner'>

export const partnerQuery = (id: string) =>
  queryOptions({ queryKey: ['partner', id], queryFn: () => get<ConsolePartner>(`/api/partners/${id}`) })

/**
 * Issues or revokes one of the partner's credentials. Each answers the credential alone, so the
 * partner (its list, the partners' counts) is read again.
 */
export function useCredentialChanges(id: string) {
  const queryClient = useQueryClient()
  const onSuccess = () => {
    void queryClient.invalidateQueries({ queryKey: partnerQuery(id).queryKey })
    void queryClient.invalidateQueries({ queryKey: ['partners'] })
  }
  const issue = useMutation({
    mutationFn: () => post<Answer<'issueConsoleCredential'>>(`/api/partners/${id}/credentials`),
    onSuccess,
  })
  const revoke = useMutation({
    mutationFn: (credentialId: number) =>
      del<Answer<'revokeConsoleCredential'>>(`/api/partners/${id}/credentials/${credentialId}`),
    onSuccess,
  })
  return { issue, revoke }
}

/** Switches the partner's messages to its customers; the answer is the partner, put on its page. */
export function useNotifyInsuredSwitch(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (on: boolean) =>
      post<Answer<'setConsoleNotifyInsured'>>(`/api/partners/${id}/notify-insured`, { notify_insured: on }),
    onSuccess: (partner) => queryClient.setQueryData(partnerQuery(id).queryKey, partner),
  })
}
