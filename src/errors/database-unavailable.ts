/**
 * Whether a database failure is the database's (or the link's) fault rather than the request's: the
 * connection was refused, reset or dropped, a timeout ran out, the server is out of connections or
 * shutting down. Such a request committed nothing (a transaction whose connection is lost is rolled back
 * by the server), and the same request may succeed once the database is back: 503 with Retry-After.
 * The one place that decides it; toAppError (src/errors/app-error.ts) maps every transport's errors with it.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; depth += 1) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    // TypeORM wraps the driver's error; Node wraps a refused connect to several addresses in an AggregateError.
    const next = e as { driverError?: unknown; cause?: unknown; errors?: unknown[] };
    e = next.driverError ?? next.cause ?? next.errors?.[0];
  }
  return false;
}

/** Seconds a client is told to wait (Retry-After) before sending the same request again. */
export const DATABASE_RETRY_AFTER_S = 2;

const UNAVAILABLE_CODES = new Set([
  // the link: refused, reset, timed out, unreachable
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // SQLSTATE: statement timeout, too many connections, admin/crash shutdown, cannot connect now
  // (class 08, connection exceptions, is matched by its prefix)
  '57014',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * pg's own messages, which carry no code: a dropped connection, a client that is no longer usable, the
 * pool's connect timeout and the client-side query timeout.
 */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout/i;
