import type { Request, Response } from 'express';
import type { JSONRPCID, JSONRPCResponse } from 'json-rpc-2.0';
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { VersionNotSupportedError, toJsonRpcError } from '@a2a-js/sdk/errors';
import type { AppError } from '../errors/app-error';
import type { InvokeDeps } from '../registry/invoke';
import type { AnyMethod } from '../registry/method';
import type { CallInfo } from '../registry/context';
import { A2A_PATH, AGENT_CARD_PATHS, accessOf } from '../documents/agent-card';
import { SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice } from '../documents/service-info';
import { loadA2aSdk, type A2aSdk } from '../a2a-tasks/sdk';
import { ServiceA2aHandler, STATE } from './a2a-request-handler';
import { rpcErrorOf } from './rpc-call';
import { applyVocabulary } from './http-call';
import { perOrigin } from './public-origin';

/** The A2A protocol versions served on /api/a2a (A2A-Version header; absent means 0.3, as the specification says). */
export const A2A_VERSIONS = ['1.0', '0.3'] as const;
const HEARTBEAT_MS = 15_000;

/** True for A2A's own JSON-RPC methods, v1.0 (SendMessage, GetTask, …) or v0.3 (message/send, tasks/get, …). */
export const isA2aMethod = (method: unknown): boolean => isV1JsonRpcMethod(method) || isLegacyJsonRpcMethod(method);
const isStreaming = (method: unknown): boolean =>
  method === 'SendStreamingMessage' || method === 'SubscribeToTask' || method === 'message/stream' || method === 'tasks/resubscribe';

type Rpc = { jsonrpc: '2.0'; id?: JSONRPCID; method: string; params?: unknown };

export interface A2aEndpoint {
  /** Answers one A2A call on its own request: JSON, or Server-Sent Events for the streaming methods. */
  handle(req: Request, res: Response, body: Rpc, call: CallInfo): Promise<void>;
  /** Answers one non-streaming A2A call inside a JSON-RPC batch. */
  inBatch(body: Rpc, call: CallInfo, version: string | undefined): Promise<JSONRPCResponse>;
}

/**
 * A2A on the JSON-RPC endpoint, as @a2a-js/sdk serves it: the SDK's JSON-RPC transport handler (v1.0) and its v0.3
 * compat handler parse, validate and shape every A2A call and answer A2A's own errors; ./a2a-request-handler.ts does
 * the work. What this adds around them is what the service's JSON-RPC already does for every call: credentials from
 * the request, the service's error codes and data (with 401 + WWW-Authenticate / 429 + Retry-After for a single
 * call), the A2A-Version check, and the event stream with heartbeats that ends when the caller leaves.
 */
export function a2aEndpoint(deps: InvokeDeps, skills: ReadonlyMap<string, AnyMethod>): A2aEndpoint {
  const help = perOrigin((origin) => helpText(deps, [...skills.values()], origin));
  let ready:
    | Promise<{
        sdk: A2aSdk;
        v1: InstanceType<A2aSdk['server']['JsonRpcTransportHandler']>;
        legacy: InstanceType<A2aSdk['legacyServer']['LegacyJsonRpcTransportHandler']>;
      }>
    | undefined;
  const load = () =>
    (ready ??= loadA2aSdk().then((sdk) => {
      const handler = new ServiceA2aHandler({ ...deps, skills, sdk, helpText: help });
      return { sdk, v1: new sdk.server.JsonRpcTransportHandler(handler), legacy: new sdk.legacyServer.LegacyJsonRpcTransportHandler(handler) };
    }));

  const cardUrl = (call: CallInfo) => `${call.address.origin}${AGENT_CARD_PATHS[0]}`;

  /** Runs the call through the SDK; `failure` is the service error it ended with, if any. */
  const run = async (body: Rpc, call: CallInfo, version: string | undefined, signal?: AbortSignal) => {
    const { sdk, v1, legacy } = await load();
    const isLegacy = isLegacyJsonRpcMethod(body.method);
    const state = new Map<string, unknown>([
      [STATE.call, { ...call, transport: 'a2a' }],
      [STATE.wire, isLegacy ? '0.3' : '1.0'],
      [STATE.signal, signal],
    ]);
    const ctx = new sdk.server.ServerCallContext({ requestedVersion: version, state });
    const out = await (isLegacy ? legacy : v1).handle(body as unknown as Record<string, unknown>, ctx);
    const mapError = (err: unknown) =>
      isLegacy ? sdk.legacyServer.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : sdk.server.JsonRpcTransportHandler.mapToJSONRPCError(err);
    return { out, failure: () => ctx.state.get(STATE.failure) as AppError | undefined, mapError };
  };

  /** A service error replaces the SDK's generic one (-32603): the caller gets the stable code, hint and docs. */
  const withServiceError = (response: JSONRPCResponse, failure: AppError | undefined, call: CallInfo): JSONRPCResponse => {
    if (!failure || !('error' in response) || !response.error) return response;
    if (failure.status >= 500) deps.log.error('a2a call failed', { requestId: call.requestId, code: failure.code, err: failure.message });
    return { jsonrpc: '2.0', id: response.id, error: rpcErrorOf(failure, cardUrl(call), call.requestId) };
  };

  const versionError = (body: Rpc, version: string | undefined): JSONRPCResponse | null => {
    if (version === undefined || (A2A_VERSIONS as readonly string[]).includes(version)) return null;
    const err = new VersionNotSupportedError(`A2A-Version ${version} is not supported. Supported versions: ${A2A_VERSIONS.join(', ')}.`);
    return { jsonrpc: '2.0', id: body.id ?? null, error: toJsonRpcError(err) } as JSONRPCResponse;
  };

  return {
    async inBatch(body, call, version) {
      const refused = versionError(body, version);
      if (refused) return refused;
      if (isStreaming(body.method)) {
        return {
          jsonrpc: '2.0',
          id: body.id ?? null,
          error: { code: -32600, message: `${body.method} streams its answer: send it alone, not in a batch.` },
        };
      }
      const { out, failure } = await run(body, call, version);
      return withServiceError(out as JSONRPCResponse, failure(), call);
    },

    async handle(req, res, body, call) {
      const version = req.get('a2a-version')?.trim();
      const refused = versionError(body, version);
      if (refused) {
        res.status(400).json(refused);
        return;
      }
      const aborted = new AbortController();
      res.on('close', () => aborted.abort());
      const { out, failure, mapError } = await run(body, call, version, aborted.signal);

      const answer = (response: JSONRPCResponse) => {
        const f = failure();
        let status = 200;
        if (f && (f.status === 401 || f.status === 429)) {
          status = f.status;
          for (const [k, v] of Object.entries(f.headers ?? {})) res.setHeader(k, v);
        }
        // The skill has run: its deprecated fields (or the strict vocabulary) are known, as on JSON-RPC.
        applyVocabulary(res, call.vocabulary);
        res.status(status).json(withServiceError(response, f, call));
      };
      if (!isAsyncIterable(out)) return answer(out as JSONRPCResponse);

      // The first event decides: an error before it is a plain JSON-RPC error, not a stream that fails at once.
      const events = out[Symbol.asyncIterator]();
      let first: IteratorResult<unknown>;
      try {
        first = await events.next();
      } catch (err) {
        return answer({ jsonrpc: '2.0', id: body.id ?? null, error: mapError(err) } as JSONRPCResponse);
      }
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Accel-Buffering', 'no');
      // What is known before the first event goes out: the strict vocabulary asked, a deprecated field already sent.
      applyVocabulary(res, call.vocabulary);
      res.flushHeaders();
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      aborted.signal.addEventListener('abort', () => void events.return?.(undefined));
      try {
        if (!first.done) res.write(`data: ${JSON.stringify(first.value)}\n\n`);
        for (;;) {
          const next = await events.next();
          if (next.done || aborted.signal.aborted) break;
          res.write(`data: ${JSON.stringify(next.value)}\n\n`);
        }
      } catch (err) {
        const response = withServiceError({ jsonrpc: '2.0', id: body.id ?? null, error: mapError(err) } as JSONRPCResponse, failure(), call);
        if (!res.writableEnded) res.write(`event: error\ndata: ${JSON.stringify(response)}\n\n`);
      } finally {
        clearInterval(heartbeat);
        if (!res.writableEnded) res.end();
      }
    },
  };
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/** What a text message gets back: what this is and how to call each skill. Built once per address. */
function helpText(deps: InvokeDeps, skills: AnyMethod[], origin: string): string {
  const { config } = deps.services;
  const lines = skills.map((m) => {
    const example = m.examples?.[0]?.input ?? {};
    const access = accessOf(m);
    const note = access === 'public' ? '' : access === 'key-optional' ? ' [key optional]' : ' [needs key]';
    return `- ${m.name}${note}: ${m.summary}. Example: {"skill": "${m.name}", "input": ${JSON.stringify(example)}}`;
  });
  return [
    `${SERVICE_TITLE}. ${SERVICE_SUMMARY} ${marketDataNotice(config)}`,
    '',
    'To run a skill, send a message with one data part {"skill": "<skill id>", "input": {...}}; the answer is a message whose data part holds the result.',
    'A place_order whose order rests is answered with a task (task id = order id) in working until the order fills, is cancelled or expires: follow it with SubscribeToTask or a push notification config, end it with CancelTask.',
    'Skills marked [needs key] need the header Authorization: Bearer <API key or OAuth access token>. Get a key with register_account and isAgent true (it is shown once).',
    `The same endpoint (${origin}${A2A_PATH}) also answers plain JSON-RPC 2.0: method = skill id, params = input.`,
    '',
    'Skills:',
    ...lines,
    '',
    `Input schemas and examples: ${origin}${AGENT_CARD_PATHS[0]}`,
  ].join('\n');
}
