import { QueryClient } from '@tanstack/react-query'

/**
 * The console's cache of server state (docs/decisions.md, Operator console UI): a screen shows what
 * it holds and fetches again when it opens; a write's answer updates it in place.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx answers the same the second time: the error is shown at once.
      retry: false,
      // Coming back to the tab does not reload the claim under a half-typed decision.
      refetchOnWindowFocus: false,
    },
    mutations: { retry: false },
  },
})
