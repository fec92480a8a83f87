import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../lib/api/client';
import { ErrorMessage } from '../../components/error-message';
import { InputField } from '../../components/form-field';

const MIN_PASSWORD = 8;

/** change_password: the current password, then the new one twice. */
export function PasswordSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [checked, setChecked] = useState(false);
  const change = useMutation({
    mutationFn: () => api.POST('/api/user/password', { body: { currentPassword: current, newPassword: next } }).then((r) => r.data!),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setAgain('');
      setChecked(false);
    },
  });
  const problems = {
    current: current ? undefined : 'Enter your current password.',
    next: next.length >= MIN_PASSWORD ? undefined : `At least ${MIN_PASSWORD} characters.`,
    again: again === next ? undefined : 'The two new passwords differ.',
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (!Object.values(problems).some(Boolean)) change.mutate();
  };
  return (
    <section className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={submit} noValidate>
        <InputField
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={checked ? problems.current : undefined}
        />
        <InputField
          label="New password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          help={`At least ${MIN_PASSWORD} characters.`}
          error={checked ? problems.next : undefined}
        />
        <InputField
          label="New password again"
          type="password"
          autoComplete="new-password"
          value={again}
          onChange={(e) => setAgain(e.target.value)}
          error={checked ? problems.again : undefined}
        />
        {change.isError ? <ErrorMessage error={change.error} signInOn401={false} /> : null}
        {change.isSuccess ? (
          <p role="status">
            Password changed.{' '}
            {change.data.sessionsEnded > 0 ? `${change.data.sessionsEnded} other session(s) were signed out.` : 'No other session was signed in.'}
          </p>
        ) : null}
        <button type="submit" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
