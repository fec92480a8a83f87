import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../../lib/api/client';
import { ACCOUNT_QUERY_KEY } from '../../lib/account';
import { signInHref } from '../../lib/paths';
import { ErrorMessage } from '../../components/error-message';

/** logout_all: every session of the account ends, this one too; then sign in again. */
export function LogoutAllSection() {
  const [, navigate] = useLocation();
  const client = useQueryClient();
  const logoutAll = useMutation({
    mutationFn: () => api.POST('/api/auth/logout-all', { body: {} }),
    onSuccess: () => {
      client.setQueryData(ACCOUNT_QUERY_KEY, null);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== ACCOUNT_QUERY_KEY[0] });
      navigate(signInHref());
    },
  });
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <p>Signed in on another device you no longer use? End every session at once, this one included.</p>
      {logoutAll.isError ? <ErrorMessage error={logoutAll.error} /> : null}
      <button type="button" onClick={() => logoutAll.mutate()} disabled={logoutAll.isPending}>
        {logoutAll.isPending ? 'Signing out…' : 'Sign out of every session'}
      </button>
    </section>
  );
}
