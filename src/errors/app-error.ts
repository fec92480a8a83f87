import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from './database-unavailable';

/**
 * The one error class of the service. Its `code` is stable; HTTP status and JSON-RPC code come
 * from ERROR_TABLE so every transport answers the same condition the same way.
 */
export const ERROR_TABLE = {
  VALIDATION_ERROR: { status: 400, rpc: -32602 },
  INSUFFICIENT_BALANCE: { status: 400, rpc: -32010 },
  POSITION_CLOSED: { status: 400, rpc: -32011 },
  MARKET_CLOSED: { status: 400, rpc: -32012 },
  NOT_COMPLETED: { status: 400, rpc: -32013 },
  ALREADY_CLAIMED: { status: 400, rpc: -32014 },
  EMAIL_TAKEN: { status: 400, rpc: -32015 },
  // A password confirming an account change is wrong: 400, not 401, since the caller's credentials are fine.
  WRONG_PASSWORD: { status: 400, rpc: -32016 },
  // A trade's limit (maxAveragePrice / minAveragePrice) would be crossed: refused, nothing changed.
  PRICE_LIMIT_EXCEEDED: { status: 400, rpc: -32017 },
  // A URL the service would call (a webhook) resolves to a loopback, private, link-local or metadata address.
  ADDRESS_NOT_ALLOWED: { status: 400, rpc: -32018 },
  // A market order larger than the venue's book shows (within its limit, less what the account already took of it).
  INSUFFICIENT_DEPTH: { status: 400, rpc: -32019 },
  // -32001..-32009 are A2A's own codes (TaskNotFound, UnsupportedOperation…) on the same endpoint: stay clear of them.
  UNAUTHORIZED: { status: 401, rpc: -32041 },
  SESSION_REQUIRED: { status: 401, rpc: -32042 },
  FORBIDDEN: { status: 403, rpc: -32043 },
  NOT_FOUND: { status: 404, rpc: -32044 },
  ENDPOINT_NOT_FOUND: { status: 404, rpc: -32601 },
  METHOD_NOT_ALLOWED: { status: 405, rpc: -32601 },
  CONFLICT: { status: 409, rpc: -32049 },
  // A replay run that has ended (end_replay) is frozen: its clock, its books and its record no longer change.
  REPLAY_ENDED: { status: 409, rpc: -32048 },
  // A retired replay suite version's secret is revealed, so its board is read-only: no new run of its episodes starts.
  SUITE_RETIRED: { status: 409, rpc: -32047 },
  PAYLOAD_TOO_LARGE: { status: 413, rpc: -32600 },
  RATE_LIMITED: { status: 429, rpc: -32029 },
  INTERNAL: { status: 500, rpc: -32603 },
  UPSTREAM_UNAVAILABLE: { status: 500, rpc: -32050 },
  PRICE_UNAVAILABLE: { status: 503, rpc: -32053 },
  SERVICE_UNAVAILABLE: { status: 503, rpc: -32054 },
} as const satisfies Record<string, { status: number; rpc: number }>;

export type ErrorCode = keyof typeof ERROR_TABLE;
export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** One problem with the input (VALIDATION_ERROR's `details`). */
export interface ErrorDetail {
  path: string;
  message: string;
  code: string;
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  hint?: string;
  docs?: string;
  details?: ErrorDetail[];
  retryAfterSeconds?: number;
  requestId?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly docs?: string;
  readonly details?: ErrorDetail[];
  /** Extra response headers (Retry-After, WWW-Authenticate) a transport may honour. */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, extra: { hint?: string; docs?: string; details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.hint = extra.hint;
    this.docs = extra.docs;
    this.details = extra.details;
    this.headers = extra.headers;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  get rpcCode(): number {
    return ERROR_TABLE[this.code].rpc;
  }

  /**
   * The Retry-After header's seconds, when the error has one. A call that has no response headers of its own
   * (inside a JSON-RPC batch, an MCP tool call) carries it in its error body instead.
   */
  get retryAfterSeconds(): number | undefined {
    const header = this.headers?.['Retry-After'];
    const seconds = header === undefined ? NaN : Number(header);
    return Number.isInteger(seconds) && seconds >= 1 ? seconds : undefined;
  }

  toBody(requestId?: string): ErrorBody {
    const body: ErrorBody = { error: this.message, code: this.code };
    if (this.hint) body.hint = this.hint;
    if (this.docs) body.docs = this.docs;
    if (this.details !== undefined) body.details = this.details;
    const retryAfter = this.retryAfterSeconds;
    if (retryAfter !== undefined) body.retryAfterSeconds = retryAfter;
    if (requestId && this.status >= 500) body.requestId = requestId;
    return body;
  }
}

/**
 * Anything thrown that is not an AppError becomes INTERNAL (the message never leaves the process), except a
 * database that is down, unreachable, stalled or full: that is SERVICE_UNAVAILABLE with Retry-After.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  return new AppError('INTERNAL', 'Internal error. Quote the request id when reporting it.');
}

/** The database cannot serve this request now; nothing was changed, and the same request may be sent again. */
export function databaseUnavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable or busy; nothing was changed. Retry shortly.', {
    hint: `Send the same request again after ${DATABASE_RETRY_AFTER_S} seconds (with the same Idempotency-Key for a trade).`,
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
  });
}
