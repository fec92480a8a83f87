import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './api/client';
import { ApiError } from './api/api-error';

/** What the header and pages know of the signed-in person; null when signed out. */
export interface Account {
  id: string;
  displayName: string;
  balance: number;
  level: number;
  levelTitle: string;
  unreadNotifications: number | null;
}

export const ACCOUNT_QUERY_KEY = ['account'] as const;

/**
 * The signed-in person from the session cookie. A 401 means "signed out" (null), not an error. Until the
 * registry has get_account this reads the trader's own stats and balance (two calls, cached a minute).
 */
async function fetchAccount(): Promise<Account | null> {
  try {
    const [stats, balance] = await Promise.all([api.GET('/api/user/stats', {}), api.GET('/api/user/balance')]);
    if (!stats.data || !balance.data) return null;
    return {
      id: stats.data.user.id,
      displayName: stats.data.user.displayName,
      balance: balance.data.balance,
      level: stats.data.level.current,
      levelTitle: stats.data.level.title,
      unreadNotifications: null,
    };
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
