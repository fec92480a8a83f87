import express, { type Request, type Response, type Router } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { InvokeDeps } from '../registry/invoke';
import type { CallInfo } from '../registry/context';
import { AppError, toAppError } from '../errors/app-error';
import { callInfoFrom } from './http-call';
import { originProblem } from './origin-guard';
import { siteAddressOf } from './public-origin';
import { buildMcpTools, isCredentialChallenge, toolCaller } from './mcp-tools';

const INSTRUCTIONS =
  'Paper trading on prediction markets with virtual money only. Read-only tools are free to call. Tools that act ' +
  'on an account need the HTTP header Authorization: Bearer <API key or OAuth access token> on this connection. ' +
  'Without one, call register_account with isAgent true: its result holds user.apiKey (shown once); configure it ' +
  'as the bearer header of this MCP server. A failed call returns isError with structuredContent ' +
  '{ error, code, hint }: read the hint.';

// Only what the SDK transport reads; copying every header into a web Request would be wasted work per call.
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

type RpcId = string | number | null;

/**
 * MCP over Streamable HTTP at /mcp, stateless (no Mcp-Session-Id; any gateway process can answer any request).
 *
 * The SDK transport cannot be reused across requests, so each POST builds a low-level Server with two handlers
 * and a transport; the tool list, schemas and validator are built once here. Every tools/call goes through the
 * same invoke() as REST and JSON-RPC.
 *
 * Credentials (MCP authorization spec: a protected resource answers 401 with a WWW-Authenticate pointing at its
 * protected-resource metadata):
 * - no credentials: initialize, tools/list and public tools work (read-only discovery is public, SPEC.md); a keyed
 *   tool answers HTTP 401 with `WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource/mcp"`,
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
  const { config, log, authenticator } = deps.services;
  const tools = buildMcpTools(deps.services.registry);
  const callTool = toolCaller(deps, tools);
  // Server builds an Ajv instance per construction unless given one: share one across requests.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const parseJson = express.json({ limit: '100kb' });
  const serverInfo = (origin: string) => ({ name: 'paper-trading-service', title: 'Prediction-market paper trading', version: '1.0.0', websiteUrl: origin });

  /** A request whose every message is a keyed tool call checks the bearer itself, in invoke(): no second lookup. */
  const checksOwnCredentials = (message: unknown): boolean => {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (!m || m.method !== 'tools/call' || typeof m.params?.name !== 'string') return false;
    const method = tools.byName.get(m.params.name);
    return method !== undefined && method.auth !== 'public';
  };

  /** 401 (or 403 for a missing scope) with the authenticator's challenge, which names /mcp's resource metadata. */
  const refuseCredential = (res: Response, err: AppError, id: RpcId) => {
    for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
    sendRpcError(res, err.status, id, err.rpcCode, err.message, { code: err.code, hint: err.hint, httpStatus: err.status });
  };

  const handle = async (req: Request, res: Response) => {
    const call: CallInfo = callInfoFrom(req, res, 'mcp', config);
    delete call.credentials.sessionToken;
    const id = rpcIdOf(req.body);
    try {
      const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
      if (call.credentials.bearer !== undefined && !messages.every(checksOwnCredentials)) {
        try {
          await authenticator.authenticate('key', call);
        } catch (err) {
          if (isCredentialChallenge(err, call)) return refuseCredential(res, err as AppError, id);
          throw err;
        }
      }

      let rejected: AppError | undefined;
      const server = new Server(serverInfo(call.address.origin), {
        capabilities: { tools: { listChanged: false } },
        instructions: INSTRUCTIONS,
        jsonSchemaValidator,
      });
      server.setRequestHandler(ListToolsRequestSchema, () => tools.list);
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const outcome = await callTool(request.params.name, request.params.arguments, call);
        rejected ??= outcome.rejection;
        return outcome.result;
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      transport.onerror = (err) => log.debug('mcp transport', { requestId: call.requestId, err: err.message });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(webRequestOf(req, `${call.address.origin}/mcp`), { parsedBody: req.body });
        if (rejected) return refuseCredential(res, rejected, id);
        res.status(response.status);
        response.headers.forEach((value, name) => res.setHeader(name, value));
        res.end(await response.text());
      } finally {
        void server.close();
      }
    } catch (err) {
      const appErr = toAppError(err);
      if (appErr.status >= 500) {
        log.error('mcp request failed', {
          requestId: call.requestId,
          code: appErr.code,
          err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
        });
      }
      if (res.headersSent) return;
      for (const [name, value] of Object.entries(appErr.headers ?? {})) res.setHeader(name, value);
      sendRpcError(res, appErr.status, id, appErr.rpcCode, appErr.message, { ...appErr.toBody(call.requestId), httpStatus: appErr.status });
    }
  };

  const router = express.Router();
  router.all('/mcp', (req, res, next) => {
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
    '/mcp',
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
  router.all('/mcp', (req, res) => {
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

function webRequestOf(req: Request, url: string): globalThis.Request {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(url, { method: 'POST', headers });
}
