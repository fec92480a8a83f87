/**
 * Whether a database failure is the database's (or the link's) fault rather than the request's: the
 * connection dropped, was refused or reset, a client-side timeout ran out. Such a request changed nothing
 * that committed, and the same request may succeed once the database is back.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const message = String((err as { message?: unknown }).message ?? '');
  return CONNECTION_LOST.test(message);
}

/** pg's own messages for a connection that is gone (they carry no code). */
const CONNECTION_LOST = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable/i;
