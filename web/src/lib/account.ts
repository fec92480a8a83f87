import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Ok } from './api/client';
import { ApiError } from './api/api-error';

/** What the header and pages know of the signed-in person (get_account); null when signed out. */
export type Account = Ok<'/api/user/me', 'get'>['user'];

export const ACCOUNT_QUERY_KEY = ['account'] as const;

/** The signed-in person from the session cookie, in one call. A 401 means "signed out" (null), not an error. */
async function fetchAccount(): Promise<Account | null> {
  try {
    const { data } = await api.GET('/api/user/me');
    return data?.user ?? null;
  } catch (e) {
    if (e instanceof ApiError && e.needsSignIn) return null;
    throw e;
  }
}

export function useAccount() {
  return useQuery({ queryKey: ACCOUNT_QUERY_KEY, queryFn: fetchAccount, staleTime: 60_000 });
}

/** After anything that changes the person's balance, level or session: read the account again. */
export function useRefreshAccount(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: ACCOUNT_QUERY_KEY });
}
