import { QueryClient } from '@tanstack/react-query'

/** The page's cache of server state: a screen shows what it holds and fetches again when it opens. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false },
    mutations: { retry: false },
  },
})
