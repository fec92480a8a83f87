import { ERROR_HINTS } from '../error-hints';

/**
 * An API answer that was not a success, as the person should see it: the service's own message and hint
 * (every REST error is JSON { error, code, hint?, docs?, requestId? }), its HTTP status, and for 429 the
 * seconds to wait from Retry-After.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly retryAfterS?: number,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** A lost or missing session (or key): the person has to sign in again. */
  get needsSignIn(): boolean {
    return this.status === 401;
  }

  /** What was asked for does not exist (a market's page at an unknown slug shows the not-found page). */
  get notFound(): boolean {
    return this.status === 404;
  }

  static async fromResponse(response: Response): Promise<ApiError> {
    const retry = Number(response.headers.get('Retry-After'));
    const retryAfterS = Number.isFinite(retry) && retry > 0 ? retry : undefined;
    let body: { error?: unknown; code?: unknown; hint?: unknown; requestId?: unknown } = {};
    try {
      body = (await response.clone().json()) as typeof body;
    } catch {
      // Not JSON (a proxy's page): the status alone says what happened.
    }
    const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    return new ApiError(
      response.status,
      str(body.code) ?? `HTTP_${response.status}`,
      str(body.error) ?? `The service answered ${response.status} ${response.statusText}.`,
      str(body.hint),
      retryAfterS,
      str(body.requestId),
    );
  }

  static network(cause: unknown): ApiError {
    const e = new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached.', ERROR_HINTS.NETWORK_ERROR);
    e.cause = cause;
    return e;
  }
}

/** Any thrown value as an ApiError, so every error display has a message (a bug in a page is still shown). */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(0, 'APP_ERROR', message || 'Something went wrong.', ERROR_HINTS.APP_ERROR);
}

/** What the person reads for an error: the message, with the codes that deserve plainer words, and the app's own hint (ERROR_HINTS). */
export function describeError(error: ApiError): { message: string; hint?: string } {
  switch (error.code) {
    case 'PRICE_UNAVAILABLE':
      return { message: `No fresh price: nothing was traded. ${error.message}`, hint: ERROR_HINTS[error.code] };
    case 'RATE_LIMITED': {
      const wait = error.retryAfterS ? `Try again in ${error.retryAfterS} s.` : 'Try again in a minute.';
      return { message: `${error.message} ${wait}`, hint: ERROR_HINTS[error.code] };
    }
    default:
      return { message: error.message, hint: ERROR_HINTS[error.code] };
  }
}
