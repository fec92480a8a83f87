import { useEffect } from 'react';
import { useLocation, useSearch } from 'wouter';
import { asApiError, describeError } from '../lib/api/api-error';
import { signInHref } from '../lib/paths';

interface Props {
  error: unknown;
  /** A 401 sends the person to sign-in and back here afterwards; forms where 401 means "wrong password" turn it off. */
  signInOn401?: boolean;
}

/** An error as the person should read it: the service's message and hint, announced to screen readers. */
export function ErrorMessage({ error, signInOn401 = true }: Props) {
  const e = asApiError(error);
  const [location, navigate] = useLocation();
  const search = useSearch();
  const redirect = signInOn401 && e.needsSignIn;
  // The page to come back to is fixed when drawn (an effect may run twice, after the address has changed).
  const back = search ? `${location}?${search}` : location;
  useEffect(() => {
    if (redirect) navigate(signInHref(back), { replace: true });
  }, [redirect, back, navigate]);
  const { message, hint } = describeError(e);
  return (
    <div role="alert" className="error">
      <p className="error-message">{redirect ? 'Your session has ended: sign in again.' : message}</p>
      {hint && !redirect ? <p className="error-hint">{hint}</p> : null}
      {e.requestId ? <p className="error-id">Request id {e.requestId}</p> : null}
    </div>
  );
}
