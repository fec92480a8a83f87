import { JSONRPCErrorException } from 'json-rpc-2.0';
import { AppError } from '../errors/app-error';
import type { CallInfo } from '../registry/context';
import { carriesCredential } from './http-call';

/** The per-call context json-rpc-2.0 hands to every method: one per call, even inside a batch. */
export interface RpcCallContext {
  call: CallInfo;
  /** The application error the call ended with, so the HTTP layer can answer 401/429 for a single call. */
  failure?: AppError;
}

/** An error that is already a JSON-RPC error object (protocol and A2A errors); passed through unchanged. */
export class RpcError extends JSONRPCErrorException {
  constructor(code: number, message: string, data?: Record<string, unknown>) {
    super(message, code, data);
    // The base constructor resets the prototype to its own (an ES5 workaround); restore ours so instanceof works.
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * Named params of one call → the method input and the call it runs as. `idempotencyKey` travels beside the
 * input (the RPC counterpart of the Idempotency-Key header); a key or token in params is refused like one in a
 * REST body.
 */
export function prepareCall(params: Record<string, unknown>, base: CallInfo): { input: Record<string, unknown>; call: CallInfo } {
  let input = params;
  let call = base;
  if ('idempotencyKey' in params) {
    const { idempotencyKey, ...rest } = params;
    if (typeof idempotencyKey !== 'string' || idempotencyKey.length === 0 || idempotencyKey.length > 255) {
      throw new AppError('VALIDATION_ERROR', 'idempotencyKey must be a string of 1 to 255 characters.', {
        hint: 'Use a fresh random string (a UUID) per distinct operation; repeat it only to retry that operation.',
      });
    }
    input = rest;
    call = { ...call, idempotencyKey };
  }
  if (carriesCredential(params)) call = { ...call, credentials: { ...call.credentials, misplaced: 'request body' } };
  return { input, call };
}

/** The JSON-RPC error object of an application error: its rpc code, message and {code, httpStatus, hint, docs, ...}. */
export function rpcErrorOf(appErr: AppError, docs: string, requestId: string): { code: number; message: string; data: Record<string, unknown> } {
  const data: Record<string, unknown> = { code: appErr.code, httpStatus: appErr.status };
  if (appErr.hint) data.hint = appErr.hint;
  data.docs = appErr.docs ?? docs;
  if (appErr.details !== undefined) data.details = appErr.details;
  // No Retry-After header inside a batch (nor on a 200 answer): the wait travels in the error data.
  if (appErr.retryAfterSeconds !== undefined) data.retryAfterSeconds = appErr.retryAfterSeconds;
  if (appErr.status >= 500) data.requestId = requestId;
  return { code: appErr.rpcCode, message: appErr.message, data };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
