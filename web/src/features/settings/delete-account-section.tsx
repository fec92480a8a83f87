import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../../lib/api/client';
import { ACCOUNT_QUERY_KEY } from '../../lib/account';
import { PATHS } from '../../lib/paths';
import { ErrorMessage } from '../../components/error-message';
import { InputField } from '../../components/form-field';

/** delete_account, confirmed with the password; afterwards the person is signed out and back on the home page. */
export function DeleteAccountSection() {
  const [password, setPassword] = useState('');
  const [, navigate] = useLocation();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.POST('/api/user/delete', { body: { password } }),
    onSuccess: () => {
      client.setQueryData(ACCOUNT_QUERY_KEY, null);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== ACCOUNT_QUERY_KEY[0] });
      navigate(PATHS.home);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password) remove.mutate();
  };
  return (
    <section className="card danger" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete your account</h2>
      <p>
        Your email, name and keys are erased and every session, key and token stops working at once. You leave the leaderboards and your public profile
        disappears. Trades stay in the books, anonymously. This cannot be undone.
      </p>
      <form onSubmit={submit} noValidate>
        <InputField
          label="Password to confirm deletion"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {remove.isError ? <ErrorMessage error={remove.error} signInOn401={false} /> : null}
        <button type="submit" className="danger-button" disabled={!password || remove.isPending}>
          {remove.isPending ? 'Deleting…' : 'Delete my account'}
        </button>
      </form>
    </section>
  );
}
