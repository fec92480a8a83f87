import { ERROR_CODES } from '../errors/app-error';
import { Server, type CacheHint, type ServerCapabilities } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { CallInfo } from '../registry/context';
import type { AppError } from '../errors/app-error';
import type { McpTools, ToolOutcome } from './mcp-tools';
import { TOOLSET_NAMES } from '../registry/toolsets';
import { PAGE_BYTES_BOUND } from '../registry/pages';

/** The error body, described once here rather than in every tool's output schema (src/transports/mcp-tools.ts). */
const ERROR_BODY_NOTE =
  'A failed call returns isError with structuredContent { error, code, hint?, docs?, details?, retryAfterSeconds?, requestId? }: error says ' +
  'what went wrong, hint what to do (read it), docs where the method is documented, details the input problems of a VALIDATION_ERROR, retryAfterSeconds when to retry, requestId ' +
  `what to quote for a server error. code is one of ${ERROR_CODES.join(', ')}. A tool's description ends with the codes ` +
  'particular to it; any tool may also answer VALIDATION_ERROR, RATE_LIMITED, INTERNAL or SERVICE_UNAVAILABLE, and one that ' +
  'acts on an account UNAUTHORIZED or FORBIDDEN.';

/** How to read a tool's output schema, said once here rather than spelled in each (outlineOf, src/documents/schema-compaction.ts). */
const OUTPUT_SCHEMA_NOTE =
  "A tool's output schema lists the fields of its result: each is always sent (null where its schema allows null), except where an " +
  'object lists its required fields; times are ISO 8601 strings in UTC. ';

/** How a list pages, said once (the budget: src/registry/pages.ts). */
const PAGING_NOTE =
  `A list answers at most limit items and at most ${PAGE_BYTES_BOUND} bytes, so a page may end early: fewer items with a nextCursor is ` +
  'not the end; pass nextCursor as cursor until it is null. ';

/** Where the other tools are: this list is one selection of toolsets (src/registry/toolsets.ts). */
const TOOLSETS_NOTE =
  ` The tools are grouped in toolsets (${TOOLSET_NAMES.join(', ')}); /mcp serves a default set, /mcp/x/{toolset} (several: ` +
  'comma-separated, or ?toolsets=a,b, or the X-MCP-Toolsets header) others, all every tool, and /mcp/readonly or ?readonly=true only the tools that change nothing.';

/**
 * What every session reads once, before any tool: what tool descriptions would otherwise each repeat (where market data
 * comes from, on this instance's configuration; what idempotencyKey does; how to read an output schema; the error body).
 */
export const mcpInstructions = (marketNotice: string): string =>
  'Paper trading on prediction markets with virtual money only. ' +
  marketNotice +
  ' Markets from the simulated venue carry simulated: true and source "simulated". Read-only tools are free to call. Tools that act ' +
  'on an account need the HTTP header Authorization: Bearer <API key or OAuth access token> on this connection. ' +
  'Without one, call register_account with isAgent true: its result holds user.apiKey (shown once); configure it ' +
  'as the bearer header of this MCP server, or use it as the client secret of the OAuth client credentials grant ' +
  '(client id = user id, scope agent). ' +
  'A tool that takes idempotencyKey (any string of 1 to 255 characters, yours to choose): a retry with the same key and ' +
  'arguments returns the first result instead of acting twice (keys are kept 24 hours). ' +
  OUTPUT_SCHEMA_NOTE +
  PAGING_NOTE +
  ERROR_BODY_NOTE +
  TOOLSETS_NOTE;

/**
 * The OAuth Client Credentials authorization extension (modelcontextprotocol/ext-auth): a server that accepts
 * client-credentials tokens lists it under `capabilities.extensions`, next to the authorization server metadata
 * that names the `client_credentials` grant and `client_secret_basic` (src/auth/discovery.ts).
 */
export const OAUTH_CLIENT_CREDENTIALS_EXTENSION = 'io.modelcontextprotocol/oauth-client-credentials';

export const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  extensions: { [OAUTH_CLIENT_CREDENTIALS_EXTENSION]: {} },
};

/**
 * Cache hints of the 2026-07-28 revision (`ttlMs`, `cacheScope` on tools/list and server/discover). Both results
 * are the same for every caller and change only with a deploy, so shared caches may keep them for a while.
 * 2025-era responses never carry these fields.
 */
export const LIST_CACHE_TTL_MS = 5 * 60_000;
const SHARED: CacheHint = { ttlMs: LIST_CACHE_TTL_MS, cacheScope: 'public' };

/** One HTTP request to /mcp: who is calling, and the credential refusal a keyed tool call ran into, if any. */
export interface McpExchange {
  call: CallInfo;
  /** The tools its address selects (src/transports/mcp-selection.ts). */
  tools: McpTools;
  rejected?: AppError;
}

type CallTool = (tools: McpTools, name: string, args: Record<string, unknown> | undefined, call: CallInfo) => Promise<ToolOutcome>;

/**
 * Builds the low-level SDK Server for one exchange: the SDK's serving entries want a fresh instance per request,
 * while the tool list, its schemas and the JSON Schema validator are built once and shared. The low-level Server
 * (not McpServer) because the tools come from the method registry with ready JSON Schemas and one dispatch for all.
 */
export function mcpServerFactory(callTool: CallTool, instructions: string) {
  // Server builds an Ajv instance per construction unless given one: share one across requests.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return (exchange: McpExchange): Server => {
    const { call, tools } = exchange;
    const server = new Server(
      { name: 'paper-trading-service', title: 'Prediction-market paper trading', version: '1.0.0', websiteUrl: call.address.origin },
      { capabilities: CAPABILITIES, instructions, jsonSchemaValidator, cacheHints: { 'tools/list': SHARED, 'server/discover': SHARED } },
    );
    server.setRequestHandler('tools/list', () => tools.list);
    server.setRequestHandler('tools/call', async (request) => {
      const outcome = await callTool(tools, request.params.name, request.params.arguments, call);
      exchange.rejected ??= outcome.rejection;
      return outcome.result;
    });
    return server;
  };
}
