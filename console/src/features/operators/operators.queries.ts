import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { type Answer, get, type Input, post } from '../../api/client'

export type ConsoleOperator = Answer<'listOperators'>['data'][number]

export const operatorsQuery = queryOptions({
  queryKey: ['operators'],
  queryFn: () => get<Answer<'listOperators'>>('/api/operators'),
})

/** An admin's changes to the operators; after each the list is read again. */
export function useOperatorChanges() {
  const queryClient = useQueryClient()
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: operatorsQuery.queryKey })
  const create = useMutation({
    mutationFn: (body: Input<'createOperator'>) => post<Answer<'createOperator'>>('/api/operators', body),
    onSuccess,
  })
  const disable = useMutation({
    mutationFn: (id: number) => post<Answer<'disableOperator'>>(`/api/operators/${id}/disable`),
    onSuccess,
  })
  const resetPassword = useMutation({
    mutationFn: (id: number) => post<Answer<'resetOperatorPassword'>>(`/api/operators/${id}/reset-password`),
    onSuccess,
  })
  const resetTotp = useMutation({
    mutationFn: (id: number) => post<Answer<'resetOperatorTotp'>>(`/api/operators/${id}/reset-totp`),
    onSuccess,
  })
  return [create, disable, resetPassword, resetTotp] as const
}
