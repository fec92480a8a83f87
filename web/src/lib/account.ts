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

/** The signed-in person from the session cookie (get_account). A 401 means "signed out" (null), not an error. */
async function fetchAccount(): Promise<Account | null> {
  try {
    const { data } = await api.GET('/api/user/me');
    if (!data) return null;
    const u = data.user;
    return { id: u.id, displayName: u.displayName, balance: u.balance, level: u.level, levelTitle: u.levelTitle, unreadNotifications: u.unreadNotifications };
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
