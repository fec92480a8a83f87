import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import express, { type Request, type Response, type Router } from 'express';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { runScoped, type InvokeDeps } from '../registry/invoke';
import type { CallInfo } from '../registry/context';
import { AppError, toAppError } from '../errors/app-error';
import { applyVocabulary, callInfoFrom } from './http-call';
import { originProblem } from './origin-guard';
import { siteAddressOf } from './public-origin';
import { isCredentialChallenge, mcpToolsets, toolCaller, type McpTools } from './mcp-tools';
import { MCP_PATHS, selectionOf } from './mcp-selection';
import { fastCallBody, fastToolCall } from './mcp-fast-call';
import { mcpInstructions, mcpServerFactory, type McpExchange } from './mcp-server';
import { marketDataNotice } from '../documents/service-info';

// What the SDK reads: content negotiation, and every Mcp-* header (the protocol version, and the 2026-07-28 standard
// headers Mcp-Method, Mcp-Name, Mcp-Param-* it checks against the body). Copying every header would be wasted work.
const FORWARDED_HEADERS = ['accept', 'content-type', 'last-event-id'];

type RpcId = string | number | null;

/**
 * The JSON-RPC code of every error this endpoint answers for the service (a refused credential, an unavailable
 * database): since 2026-07-28 MCP reserves -32020..-32099 for its own errors (-32042 is URL elicitation, -32022 an
 * unsupported version), where the service's JSON-RPC codes (-32041 UNAUTHORIZED…) would be misread. The stable code
 * is in `error.data.code`, as on every other surface.
 */
const SERVICE_ERROR = -32000;

/**
 * MCP over Streamable HTTP at /mcp, stateless (no Mcp-Session-Id; any gateway process can answer any request), on
 * the v2 SDK (@modelcontextprotocol/server), for both protocol eras on the same endpoint:
 * - 2026-07-28 (a `_meta` envelope on every request, `server/discover`, no initialize): the SDK's createMcpHandler,
 *   which checks the envelope and the Mcp-Method/Mcp-Name headers against the body and answers the new errors
 *   (-32022 unsupported version, -32020 header mismatch, HTTP 400) and the cache fields on lists;
 * - 2025-11-25, 2025-06-18 and older (initialize, or a bare request with no envelope): a stateless Streamable HTTP
 *   transport per request with JSON responses, as before the move to v2. `isLegacyRequest` is the SDK's own
 *   classification, so the routing here never disagrees with the handler's.
 * Both build their per-request Server from one factory (mcp-server.ts); every tools/call goes through the same
 * invoke() as REST and JSON-RPC.
 *
 * Credentials (MCP authorization spec: a protected resource answers 401 with a WWW-Authenticate pointing at its
 * protected-resource metadata):
 * - no credentials: initialize, server/discover, tools/list and public tools work (read-only discovery is public,
 *   SPEC.md); a keyed tool answers HTTP 401 with `WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource/mcp"`,
 *   so a client configured only for OAuth starts the standard flow (metadata, /oauth/token) and retries with a token;
 *   the JSON-RPC error body still carries the code and hint for an agent reading it;
 * - an invalid bearer: HTTP 401 with the authenticator's challenge, `WWW-Authenticate: Bearer
 *   resource_metadata=".../.well-known/oauth-protected-resource/mcp", error="invalid_token"` (403 and
 *   insufficient_scope for a token without scope agent), whatever the request, so an OAuth-capable client knows to
 *   fetch a new token rather than reading a tool result it may never show anyone;
 * - session cookies are ignored: MCP is for agents holding keys or tokens, and a cookie would let a browser page
 *   act on a person's account.
 */
export function mcpRouter(deps: InvokeDeps): Router {
  const { config, log } = deps.services;
  const toolsFor = mcpToolsets(deps.services.registry);
  const callTool = toolCaller(deps);
  const serverFor = mcpServerFactory(callTool, mcpInstructions(marketDataNotice(config)));
  const parseJson = express.json({ limit: '100kb' });

  // The SDK hands the factory the web Request it was given: that finds the exchange the Server belongs to.
  const exchanges = new WeakMap<globalThis.Request, McpExchange>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const exchange = requestInfo && exchanges.get(requestInfo);
      if (!exchange) throw new Error('MCP request reached the server factory without its exchange');
      return serverFor(exchange);
    },
    { legacy: 'reject', onerror: (err) => log.debug('mcp request refused', { err: err.message }) },
  );

  /** 2025-era request: a fresh stateless transport answering with one JSON body (the Response holds every result). */
  const serveLegacy = async (exchange: McpExchange, request: globalThis.Request, parsedBody: unknown) => {
    const server = serverFor(exchange);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = (err) => log.debug('mcp transport', { requestId: exchange.call.requestId, err: err.message });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      void server.close();
    }
  };

  /** A request whose every message is a keyed tool call checks the bearer itself, in invoke(): no second lookup. */
  const checksOwnCredentials =
    (tools: McpTools) =>
    (message: unknown): boolean => {
      const m = message as { method?: unknown; params?: { name?: unknown } } | null;
      if (!m || m.method !== 'tools/call' || typeof m.params?.name !== 'string') return false;
      const method = tools.byName.get(m.params.name);
      return method !== undefined && method.auth !== 'public';
    };

  /** 401 (or 403 for a missing scope) with the authenticator's challenge, which names /mcp's resource metadata. */
  const refuseCredential = (res: Response, err: AppError, id: RpcId) => {
    for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
    sendRpcError(res, err.status, id, SERVICE_ERROR, err.message, { code: err.code, hint: err.hint, httpStatus: err.status });
  };

  const handle = async (req: Request, res: Response) => {
    const call: CallInfo = callInfoFrom(req, res, 'mcp', config);
    delete call.credentials.sessionToken;
    const id = rpcIdOf(req.body);
    let tools: McpTools;
    try {
      tools = toolsFor(selectionOf(req));
    } catch (err) {
      const appErr = toAppError(err);
      return sendRpcError(res, appErr.status, id, SERVICE_ERROR, appErr.message, { ...appErr.toBody(call.requestId), httpStatus: appErr.status });
    }
    // A client that goes away ends its exchange (and any stream the SDK holds open for it).
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
      if (call.credentials.bearer !== undefined && !messages.every(checksOwnCredentials(tools))) {
        try {
          // A replay run's key is checked by its run, as invoke() will (runScoped).
          const scoped = await runScoped(deps, call, true);
          await scoped.deps.services.authenticator.authenticate('key', scoped.call);
        } catch (err) {
          if (isCredentialChallenge(err, call)) return refuseCredential(res, err as AppError, id);
          throw err;
        }
      }

      const fast = fastToolCall(req.body, (name) => req.headers[name], tools);
      if (fast) {
        const outcome = await callTool(tools, fast.name, fast.args, call);
        if (outcome.rejection) return refuseCredential(res, outcome.rejection, fast.id);
        applyVocabulary(res, call.vocabulary);
        res.status(200).setHeader('Content-Type', 'application/json');
        return void res.end(fastCallBody(fast.id, outcome.result));
      }

      const exchange: McpExchange = { call, tools };
      const request = webRequestOf(req, `${call.address.origin}/mcp`, gone.signal);
      exchanges.set(request, exchange);
      const response = (await isLegacyRequest(request, req.body))
        ? await serveLegacy(exchange, request, req.body)
        : await modern.fetch(request, { parsedBody: req.body });
      if (exchange.rejected) {
        void response.body?.cancel();
        return refuseCredential(res, exchange.rejected, id);
      }
      // A JSON answer's tool calls have run by now (a streamed one's may not have: it says nothing of deprecations).
      applyVocabulary(res, call.vocabulary);
      await relay(response, res);
    } catch (err) {
      const appErr = toAppError(err);
      if (appErr.status >= 500) {
        log.error('mcp request failed', {
          requestId: call.requestId,
          code: appErr.code,
          err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
        });
      }
      if (res.headersSent) return void res.end();
      for (const [name, value] of Object.entries(appErr.headers ?? {})) res.setHeader(name, value);
      sendRpcError(res, appErr.status, id, SERVICE_ERROR, appErr.message, { ...appErr.toBody(call.requestId), httpStatus: appErr.status });
    }
  };

  const router = express.Router();
  router.all(MCP_PATHS, (req, res, next) => {
    const address = siteAddressOf(req, config);
    const problem = originProblem(req, address);
    if (!problem) return next();
    sendRpcError(res, 403, null, -32000, `Forbidden: ${problem}.`, {
      code: 'FORBIDDEN',
      hint: `DNS-rebinding protection: connect to ${address.own[0] ? `${address.own[0]}/mcp` : '/mcp at localhost, 127.0.0.1 or the host of BASE_URL'} by its own name, from a native client or a page on this origin.`,
      httpStatus: 403,
    });
  });
  router.post(
    MCP_PATHS,
    (req, res, next) => {
      // Our own parser, so a malformed body is a JSON-RPC parse error here rather than a REST 400.
      parseJson(req, res, (err?: unknown) => {
        if (!err) return next();
        const type = (err as { type?: string }).type;
        if (type === 'entity.too.large')
          return sendRpcError(res, 413, null, -32600, 'Request body is larger than 100 kB.', { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
        if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
          return sendRpcError(res, 415, null, -32000, 'Unsupported body encoding: send UTF-8 JSON.', { code: 'VALIDATION_ERROR', httpStatus: 415 });
        }
        sendRpcError(res, 400, null, -32700, 'Parse error: the body is not a JSON-RPC object or array.', { code: 'VALIDATION_ERROR', httpStatus: 400 });
      });
    },
    (req, res) => void handle(req, res),
  );
  // Stateless: no server-to-client SSE stream to open (GET) and no session to end (DELETE).
  router.all(MCP_PATHS, (req, res) => {
    res.setHeader('Allow', 'POST');
    sendRpcError(res, 405, null, -32000, `Method ${req.method} is not allowed on /mcp: this server is stateless; POST JSON-RPC messages.`, {
      code: 'METHOD_NOT_ALLOWED',
      httpStatus: 405,
    });
  });
  return router;
}

function sendRpcError(res: Response, status: number, id: RpcId, code: number, message: string, data?: Record<string, unknown>): void {
  res.status(status).json({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
}

/** The id to answer with when the whole HTTP request fails: the single request's id, else null. */
function rpcIdOf(body: unknown): RpcId {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function webRequestOf(req: Request, url: string, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value !== 'string') continue;
    if (FORWARDED_HEADERS.includes(name) || name.startsWith('mcp-')) headers.set(name, value);
  }
  return new Request(url, { method: 'POST', headers, signal });
}

/** Copies the SDK's web Response onto Express's: status, headers, then the body as it comes (JSON, or an SSE stream). */
async function relay(response: globalThis.Response, res: Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) return void res.end();
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  await new Promise<void>((resolve) => {
    res.on('close', resolve);
    body.on('error', () => res.destroy());
    body.pipe(res);
  });
}
