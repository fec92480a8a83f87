import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  JSONRPCErrorCode,
  JSONRPCServer,
  createJSONRPCErrorResponse,
  isJSONRPCID,
  type JSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { AppError, toAppError } from '../errors/app-error';
import { invoke, type InvokeDeps } from '../registry/invoke';
import { onSurface, type AnyMethod } from '../registry/method';
import type { CallInfo } from '../registry/context';
import { A2A_PATH, AGENT_CARD_PATHS } from '../documents/agent-card';
import { agentCardRouter } from '../documents/agent-card-routes';
import { methodDocsUrl } from '../documents/service-info';
import { applyVocabulary, callInfoFrom } from './http-call';
import { publicOriginOf } from './public-origin';
import { methodNotAllowed } from './rest';
import { a2aEndpoint, isA2aMethod } from './a2a';
import { RpcError, isPlainObject, prepareCall, rpcErrorOf, type RpcCallContext } from './rpc-call';

/** Calls per batch: enough for an agent's round of reads, small enough that one request cannot hog the server. */
export const BATCH_LIMIT = 50;
const BODY_LIMIT = '100kb';

interface Outcome {
  response: JSONRPCResponse | null;
  /** The request itself was malformed (HTTP 400 when it was not part of a batch). */
  invalid?: boolean;
  failure?: AppError;
}

/**
 * JSON-RPC 2.0 at POST /api/a2a: one method per registry method on the jsonrpc surface, plus A2A's own
 * methods (./a2a.ts), all through the one invoke pipeline. The router parses its own body so that a malformed
 * one is a JSON-RPC parse error, not a REST error. HTTP status: 200 for answered calls, 204 when only
 * notifications were sent, 400 for an unparseable body, a bad envelope or a bad batch, 413 (with a -32600
 * error) for a body over 100 kB, and 401 / 429 when a single (non-batch) call fails authentication or its
 * rate limit (with WWW-Authenticate / Retry-After). Inside a batch every call carries its own result or
 * error and the status stays 200. Batch calls run in order, each through invoke (so each counts against
 * the rate limit). The Idempotency-Key header applies to a single call; in a batch each call sends its
 * own `idempotencyKey` param. Session cookies are never set here (agents carry keys, not cookies).
 */
export function jsonRpcRouter(deps: InvokeDeps): Router {
  const { config } = deps.services;
  /** The agent card at the address the caller reached. */
  const cardUrl = (origin: string) => `${origin}${AGENT_CARD_PATHS[0]}`;
  const methods = new Map<string, AnyMethod>(deps.services.registry.methods.filter((m) => onSurface(m, 'jsonrpc')).map((m) => [m.name, m]));

  // Errors are logged where they happen (run below); the library's console.warn would print every AppError.
  const server = new JSONRPCServer<RpcCallContext>({ errorListener: () => undefined });

  /** Turns whatever a call threw into a JSON-RPC error object; application errors keep their stable code. */
  const run = async (ctx: RpcCallContext, method: AnyMethod | undefined, work: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof RpcError) throw err;
      const appErr = toAppError(err);
      ctx.failure = appErr;
      if (appErr.status >= 500) {
        deps.log.error('rpc call failed', { requestId: ctx.call.requestId, method: method?.name, code: appErr.code, err: describe(err) });
      }
      const origin = ctx.call.address.origin;
      const e = rpcErrorOf(appErr, method ? methodDocsUrl(origin, method) : cardUrl(origin), ctx.call.requestId);
      throw new RpcError(e.code, e.message, e.data);
    }
  };

  for (const method of methods.values()) {
    server.addMethod(method.name, (params: Record<string, unknown> | undefined, ctx) =>
      run(ctx, method, () => {
        const { input, call } = prepareCall(params ?? {}, ctx.call);
        return invoke(deps, method, input, call);
      }),
    );
  }
  // A registry method named like an A2A method would be shadowed silently: refuse to start instead.
  for (const name of methods.keys()) if (isA2aMethod(name)) throw new Error(`JSON-RPC method ${name} is both a registry method and an A2A method`);
  const a2a = a2aEndpoint(deps, methods);
  // Only RpcError reaches here (run converts the rest); anything else is a bug, and says nothing of itself.
  server.mapErrorToJSONRPCErrorResponse = (id: JSONRPCID, err: unknown) =>
    err instanceof RpcError
      ? createJSONRPCErrorResponse(id, err.code, err.message, err.data)
      : createJSONRPCErrorResponse(id, JSONRPCErrorCode.InternalError, 'Internal error.');
  server.handleMethodNotFound = async <ServerParams>(request: JSONRPCRequest, ctx: ServerParams) => {
    if (request.id === undefined) return null;
    const card = cardUrl((ctx as RpcCallContext).call.address.origin);
    return createJSONRPCErrorResponse(request.id, JSONRPCErrorCode.MethodNotFound, `Method not found: ${request.method}.`, {
      hint: `Methods are the skill ids on the agent card (${card}), plus the A2A methods SendMessage and message/send.`,
      docs: card,
    });
  };

  const protocolError = (origin: string, id: JSONRPCID, code: number, message: string, httpStatus: number, hint: string): JSONRPCResponse =>
    createJSONRPCErrorResponse(id, code, message, {
      code: httpStatus === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR',
      httpStatus,
      hint,
      docs: cardUrl(origin),
    });

  const one = async (raw: unknown, base: CallInfo, a2aVersion: string | undefined): Promise<Outcome> => {
    const problem = envelopeProblem(raw);
    if (problem) {
      const id = isPlainObject(raw) && isJSONRPCID(raw.id) ? raw.id : null;
      return {
        invalid: true,
        response: protocolError(base.address.origin, id, JSONRPCErrorCode.InvalidRequest, `Invalid Request: ${problem}.`, 400, ENVELOPE_HINT),
      };
    }
    const request = raw as unknown as JSONRPCRequest;
    if (isA2aMethod(request.method)) {
      if (request.id === undefined) return { response: null };
      return { response: await a2a.inBatch({ ...request, jsonrpc: '2.0' }, { ...base }, a2aVersion) };
    }
    if (Array.isArray(request.params) && server.hasMethod(request.method)) {
      if (request.id === undefined) return { response: null };
      return {
        response: createJSONRPCErrorResponse(
          request.id,
          JSONRPCErrorCode.InvalidParams,
          'Positional params are not supported: send params as an object of named fields.',
          {
            code: 'VALIDATION_ERROR',
            httpStatus: 400,
            hint: `The field names are the input schema of the method; see ${cardUrl(base.address.origin)}.`,
            docs: cardUrl(base.address.origin),
          },
        ),
      };
    }
    const ctx: RpcCallContext = { call: { ...base } };
    const response = await server.receive(request, ctx);
    return { response, failure: ctx.failure };
  };

  const handle = async (req: Request, res: Response): Promise<void> => {
    const body: unknown = req.body;
    const base = callInfoFrom(req, res, 'jsonrpc', config);
    if (Array.isArray(body)) {
      if (body.length === 0 || body.length > BATCH_LIMIT) {
        const message =
          body.length === 0 ? 'Invalid Request: empty batch.' : `Invalid Request: a batch holds at most ${BATCH_LIMIT} calls; this one has ${body.length}.`;
        res
          .status(400)
          .json(protocolError(base.address.origin, null, JSONRPCErrorCode.InvalidRequest, message, 400, `Send 1 to ${BATCH_LIMIT} calls per batch.`));
        return;
      }
      const { idempotencyKey: _header, ...batchBase } = base;
      const responses: JSONRPCResponse[] = [];
      for (const raw of body) {
        const { response } = await one(raw, batchBase, req.get('a2a-version')?.trim());
        if (response) responses.push(response);
      }
      applyVocabulary(res, base.vocabulary);
      if (responses.length === 0) res.status(204).end();
      else res.status(200).json(responses);
      return;
    }
    // A2A's own methods are answered by the SDK's transport (and may stream): ./a2a.ts.
    if (isPlainObject(body) && !envelopeProblem(body) && isA2aMethod(body.method) && body.id !== undefined) {
      await a2a.handle(req, res, body as { jsonrpc: '2.0'; id: JSONRPCID; method: string; params?: unknown }, base);
      return;
    }
    const outcome = await one(body, base, undefined);
    applyVocabulary(res, base.vocabulary);
    if (!outcome.response) {
      res.status(204).end();
      return;
    }
    let status = outcome.invalid ? 400 : 200;
    const failure = outcome.failure;
    if (failure && (failure.status === 401 || failure.status === 429)) {
      status = failure.status;
      for (const [k, v] of Object.entries(failure.headers ?? {})) res.setHeader(k, v);
    }
    res.status(status).json(outcome.response);
  };

  // Any content type is read as JSON (A2A and JSON-RPC clients do not all label it); non-objects are kept so
  // that `"x"` is an Invalid Request rather than a parse error.
  const parseJson = express.json({ limit: BODY_LIMIT, strict: false, type: () => true });

  const router = express.Router();
  router.post(A2A_PATH, (req: Request, res: Response, next: NextFunction) => {
    parseJson(req, res, (err?: unknown) => {
      if (err) {
        const failure = parseFailure(err);
        if (!failure) return next(err);
        res.status(failure.status).json(protocolError(publicOriginOf(req, config), null, failure.code, failure.message, failure.status, failure.hint));
        return;
      }
      if (req.body === undefined) {
        res
          .status(400)
          .json(protocolError(publicOriginOf(req, config), null, JSONRPCErrorCode.ParseError, 'Parse error: the body is empty.', 400, ENVELOPE_HINT));
        return;
      }
      handle(req, res).catch(next);
    });
  });
  // GET is agent.getCard (REST, from the registry); anything else on this path is a 405 naming both verbs.
  router.all(A2A_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    methodNotAllowed(['GET', 'POST'])(req, res, next);
  });
  router.use(agentCardRouter(deps));
  return router;
}

const ENVELOPE_HINT = 'Send {"jsonrpc": "2.0", "id": 1, "method": "<method>", "params": {...}} with Content-Type: application/json.';

/** Why a value is not a JSON-RPC 2.0 request, or null when it is one. */
function envelopeProblem(raw: unknown): string | null {
  if (!isPlainObject(raw)) return 'a request must be a JSON object';
  if (raw.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof raw.method !== 'string' || raw.method.length === 0) return 'method must be a non-empty string';
  if ('id' in raw && !isJSONRPCID(raw.id)) return 'id must be a string, a number or null';
  if ('params' in raw && (typeof raw.params !== 'object' || raw.params === null)) return 'params must be an object';
  if ('result' in raw || 'error' in raw) return 'a request carries no result or error';
  return null;
}

/** express.json failures, as JSON-RPC errors; null for the rest (aborted requests), which go to the error handler. */
function parseFailure(err: unknown): { status: number; code: number; message: string; hint: string } | null {
  switch ((err as { type?: string } | null)?.type) {
    case 'entity.parse.failed':
      return { status: 400, code: JSONRPCErrorCode.ParseError, message: 'Parse error: the body is not valid JSON.', hint: ENVELOPE_HINT };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 400, code: JSONRPCErrorCode.ParseError, message: 'Parse error: the body must be UTF-8 JSON.', hint: ENVELOPE_HINT };
    case 'entity.too.large':
      return {
        status: 413,
        code: JSONRPCErrorCode.InvalidRequest,
        message: 'Invalid Request: the body is larger than 100 kB.',
        hint: 'Split the work into smaller requests or batches.',
      };
    default:
      return null;
  }
}

function describe(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { value: String(err) };
}
