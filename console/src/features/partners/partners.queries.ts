import { queryOptions } from '@tanstack/react-query'
import { type Answer, get } from '../../api/client'

/** Every partner, for the list and the queue's partner filter. */
export const partnersQuery = queryOptions({
  queryKey: ['partners'],
  queryFn: () => get<Answer<'listConsolePartners'>>('/api/partners'),
})
