import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../../lib/api/client';
import { useRefreshAccount } from '../../lib/account';
import { PATHS, safeNext } from '../../lib/paths';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { InputField } from '../../components/form-field';

/** Sign in with email and password (sets the session cookie), then back to the page that asked for it. */
export function SignInPage() {
  usePageTitle('Sign in');
  const next = safeNext(new URLSearchParams(useSearch()).get('next'));
  const [, navigate] = useLocation();
  const refresh = useRefreshAccount();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => api.POST('/api/auth/login', { body: { email, password } }),
    onSuccess: async () => {
      await refresh();
      navigate(next, { replace: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };
  return (
    <section className="narrow">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <InputField label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <InputField label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        {signIn.isError ? <ErrorMessage error={signIn.error} signInOn401={false} /> : null}
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        New here? <Link href={PATHS.signUp}>Create an account</Link> and get 1000 virtual dollars.
      </p>
    </section>
  );
}
