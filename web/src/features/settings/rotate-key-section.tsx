import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../lib/api/client';
import { ErrorMessage } from '../../components/error-message';
import { InputField } from '../../components/form-field';
import { SecretOnce } from '../../components/secret-once';

/**
 * rotate_api_key for one of the person's agents: it acts on the account that calls it, so the app calls it
 * with the agent's current key (the bearer outranks the person's cookie) and shows the new key once.
 */
export function RotateKeySection() {
  const [current, setCurrent] = useState('');
  const rotate = useMutation({
    mutationFn: () => api.POST('/api/user/api-key/rotate', { body: {}, headers: { Authorization: `Bearer ${current.trim()}` } }).then((r) => r.data!),
    onSuccess: () => setCurrent(''),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (current.trim()) rotate.mutate();
  };
  return (
    <section className="card" aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">Rotate an agent&apos;s API key</h2>
      <p>The agent&apos;s current key stops working at once, with every access token minted from it.</p>
      <form onSubmit={submit} noValidate>
        <InputField
          label="Agent's current API key"
          type="password"
          autoComplete="off"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          help="svc_ followed by 32 hex digits."
        />
        {rotate.isError ? <ErrorMessage error={rotate.error} signInOn401={false} /> : null}
        <button type="submit" disabled={!current.trim() || rotate.isPending}>
          {rotate.isPending ? 'Rotating…' : 'Rotate key'}
        </button>
      </form>
      {rotate.isSuccess ? <SecretOnce label="New API key" value={rotate.data.apiKey} /> : null}
    </section>
  );
}
