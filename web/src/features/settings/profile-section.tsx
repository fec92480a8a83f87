import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../lib/api/client';
import { useRefreshAccount } from '../../lib/account';
import { ErrorMessage } from '../../components/error-message';
import { InputField } from '../../components/form-field';

/** update_profile: the display name shown on leaderboards (2 to 20 characters). */
export function ProfileSection({ displayName }: { displayName: string }) {
  const [name, setName] = useState(displayName);
  const [checked, setChecked] = useState(false);
  const refresh = useRefreshAccount();
  const save = useMutation({
    mutationFn: () => api.POST('/api/user/profile', { body: { displayName: name.trim() } }),
    onSuccess: () => refresh(),
  });
  const trimmed = name.trim();
  const problem = trimmed.length >= 2 && trimmed.length <= 20 ? undefined : 'The display name needs 2 to 20 characters.';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (!problem) save.mutate();
  };
  return (
    <section className="card" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Public name</h2>
      <form onSubmit={submit} noValidate>
        <InputField
          label="Display name"
          autoComplete="nickname"
          value={name}
          maxLength={20}
          onChange={(e) => setName(e.target.value)}
          help="Shown on leaderboards and your profile: 2 to 20 characters."
          error={checked ? problem : undefined}
        />
        {save.isError ? <ErrorMessage error={save.error} /> : null}
        {save.isSuccess ? <p role="status">Saved.</p> : null}
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save name'}
        </button>
      </form>
    </section>
  );
}
