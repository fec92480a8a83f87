import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../lib/api/api-error';
import { readRetry } from '../lib/api/read-retry';
import { ACCOUNT_QUERY_KEY } from '../lib/account';

/**
 * One query client, shared by every page, so a page reuses what another has read. The API allows about 30 calls a
 * minute per account, so data stays fresh for 30 s (longer where a page says so) and nothing refetches on window
 * focus; repeated reads of public data are conditional (the browser sends If-None-Match, and a 304 is not counted).
 * A read refused by the rate limit waits for its Retry-After and tries again by itself, keeping what the page
 * shows meanwhile (app/rate-limit-notice.tsx counts the wait down); otherwise only network failures and 5xx are
 * retried, once. Any 401 re-reads the account, so the header shows a lost session as signed out.
 */
export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        ...readRetry,
      },
      mutations: { retry: false },
    },
    queryCache: new QueryCache({ onError: (error, query) => sessionCheck(error, query.queryKey[0]) }),
    mutationCache: new MutationCache({ onError: (error) => sessionCheck(error, undefined) }),
  });
  /** A 401 anywhere may mean the session ended: read the account again (its own 401 means signed out). */
  function sessionCheck(error: unknown, key: unknown): void {
    if (error instanceof ApiError && error.needsSignIn && key !== ACCOUNT_QUERY_KEY[0]) void client.invalidateQueries({ queryKey: ACCOUNT_QUERY_KEY });
  }
  return client;
}

export function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
