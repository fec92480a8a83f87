import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../../lib/api/client';
import { asApiError } from '../../lib/api/api-error';
import { useRefreshAccount } from '../../lib/account';
import { PATHS, safeNext } from '../../lib/paths';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { InputField } from '../../components/form-field';

const MIN_PASSWORD = 8;

/** Create a person's account (signed in at once); `?ref=CODE` in a link pre-fills the referral code. */
export function SignUpPage() {
  usePageTitle('Sign up');
  const params = new URLSearchParams(useSearch());
  const next = safeNext(params.get('next'));
  const [, navigate] = useLocation();
  const refresh = useRefreshAccount();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [referralCode, setReferralCode] = useState(params.get('ref') ?? '');
  const [checked, setChecked] = useState(false);

  const signUp = useMutation({
    mutationFn: () =>
      api.POST('/api/auth/register', {
        body: { email, password, displayName, isAgent: false, ...(referralCode.trim() ? { referralCode: referralCode.trim() } : {}) },
      }),
    onSuccess: async () => {
      await refresh();
      navigate(next, { replace: true });
    },
  });

  const name = displayName.trim();
  const problems = {
    email: /^\S+@\S+\.\S+$/.test(email) ? undefined : 'Enter an email address like name@example.com.',
    password: password.length >= MIN_PASSWORD ? undefined : `The password is too short: at least ${MIN_PASSWORD} characters.`,
    displayName: name.length >= 2 && name.length <= 20 ? undefined : 'The display name needs 2 to 20 characters.',
  };
  const serverError = signUp.isError ? asApiError(signUp.error) : null;
  const emailTaken = serverError?.code === 'EMAIL_TAKEN';

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (problems.email || problems.password || problems.displayName) return;
    signUp.mutate();
  };
  return (
    <section className="narrow">
      <h1>Create your account</h1>
      <p>You start with 1000 virtual dollars to trade prediction markets. No real money, ever.</p>
      <form onSubmit={submit} noValidate>
        <InputField
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={
            emailTaken ? (
              <>
                {serverError.message} <Link href={PATHS.signIn}>Sign in instead</Link>, or use another email.
              </>
            ) : checked ? (
              problems.email
            ) : undefined
          }
        />
        <InputField
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          help={`At least ${MIN_PASSWORD} characters.`}
          error={checked ? problems.password : undefined}
        />
        <InputField
          label="Display name"
          autoComplete="nickname"
          required
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          help="Shown on leaderboards: 2 to 20 characters."
          error={checked ? problems.displayName : undefined}
        />
        <InputField label="Referral code (optional)" value={referralCode} onChange={(e) => setReferralCode(e.target.value)} />
        {serverError && !emailTaken ? <ErrorMessage error={serverError} signInOn401={false} /> : null}
        <button type="submit" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating…' : 'Sign up'}
        </button>
      </form>
      <p>
        Have an account? <Link href={PATHS.signIn}>Sign in</Link>.
      </p>
    </section>
  );
}
