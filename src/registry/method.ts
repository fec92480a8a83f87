import type { z } from 'zod';
import type { ErrorCode } from '../errors/app-error';
import type { AuthMode } from '../auth/caller';
import type { LimitClass } from '../limits/rate-limiter';
import type { MethodContext } from './context';
import type { Toolset } from './toolsets';

export type { AuthMode, LimitClass };
export type Area = 'Markets' | 'Trading' | 'Accounts' | 'Leaderboards' | 'Gamification' | 'Community markets' | 'Forecasting' | 'Discussion' | 'Agents';

export interface RestBinding {
  method: 'GET' | 'POST' | 'DELETE';
  /** Express 5 path with `:param` segments, e.g. `/api/positions/:id/sell`. */
  path: string;
  /** Success status; 200 unless stated (201 for registration). */
  status?: number;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

// Method schemas are always objects at the top level (STYLE.md habit 1).
export type ObjectSchema = z.ZodObject<z.ZodRawShape>;

export interface MethodSpec<I extends ObjectSchema, O extends ObjectSchema> {
  /** JSON-RPC method name and agent-card skill id; its MCP tool name is toolNameOf(it). */
  name: string;
  area: Area;
  /** The MCP toolset its tool is in (src/registry/toolsets.ts); every method is in one. */
  toolset: Toolset;
  /** In the tool list /mcp serves when no toolset is named: what a first conversation needs (at most 25 tools, 30 KB). */
  defaultTool?: true;
  summary: string;
  /**
   * What a model reads where every token counts (an MCP tool's description in tools/list, an A2A skill's): what it does,
   * when to use it, what it costs or limits, in about 250 characters. Its error codes follow it (toolDescriptionOf).
   */
  brief: string;
  /** The full text, for /openapi.json, llms-full.txt and the docs: when to use it, what it costs, what can go wrong. */
  description: string;
  auth: AuthMode;
  limit: LimitClass;
  input: I;
  output: O;
  rest?: RestBinding;
  annotations: ToolAnnotations;
  /** Errors the method can answer besides VALIDATION_ERROR / auth / rate limit; they flow into the docs. */
  errors?: ErrorCode[];
  examples?: Array<{ input: z.input<I>; output: z.input<O> }>;
  /** Surfaces the method is not offered on (session-only methods are never MCP tools or RPC methods). */
  hiddenFrom?: Array<'mcp' | 'jsonrpc'>;
  /** Reads an Idempotency-Key (header on REST, `idempotencyKey` input on RPC/MCP). */
  idempotent?: boolean;
  /**
   * A venue alias (issue 50 item 2): the same as method `use`, which tells the venue from the market. It stays fully
   * working until its sunset (vocabulary.ts DEPRECATED_METHODS); every answer carries `Deprecation` and `Sunset` headers,
   * and the OpenAPI operation (`deprecated: true`), the tool's description and the docs name the method to use.
   */
  deprecated?: { use: string };
  /**
   * The output list whose items the input's `fields` (src/registry/fields.ts fieldsInput) cuts to the named fields and
   * `id` (issue 51 item 2): a market list a model scans. Without `fields`, the whole items.
   */
  selectsFields?: string;
  handler: (ctx: MethodContext, input: z.output<I>) => Promise<z.input<O>>;
}

export type AnyMethod = MethodSpec<ObjectSchema, ObjectSchema>;

/**
 * A method entry. Its input becomes strict: a field it does not declare is refused with VALIDATION_ERROR (nothing runs),
 * and its JSON Schema says `additionalProperties: false`.
 */
export function defineMethod<I extends ObjectSchema, O extends ObjectSchema>(spec: MethodSpec<I, O>): MethodSpec<I, O> {
  return { ...spec, input: spec.input.strict() as unknown as I };
}

/**
 * Whether a call of the method may be a free revalidation: a public read over REST GET, whose answer is the same for
 * every caller. Such an answer carries an ETag, and a request that already holds it (If-None-Match) is answered 304
 * without counting against the method's rate limit (src/registry/invoke.ts), only against the revalidation budget.
 */
export function isRevalidatable(method: AnyMethod): boolean {
  return method.auth === 'public' && method.rest?.method === 'GET' && method.annotations.readOnlyHint === true;
}

/** Whether a method is served on an RPC surface (JSON-RPC, A2A skills, MCP tools). */
export function onSurface(method: AnyMethod, surface: 'mcp' | 'jsonrpc'): boolean {
  if (method.auth === 'session') return false;
  return !method.hiddenFrom?.includes(surface);
}

/**
 * What a model reads about a method where every token counts (an MCP tool's description, an A2A skill's): its brief,
 * then the error codes particular to it: its declared `errors` but VALIDATION_ERROR and RATE_LIMITED, which any call can
 * answer (the MCP instructions say so once).
 */
export function toolDescriptionOf(method: AnyMethod): string {
  const own = (method.errors ?? []).filter((c) => c !== 'VALIDATION_ERROR' && c !== 'RATE_LIMITED');
  const brief = method.deprecated ? `Deprecated: use ${method.deprecated.use}. ${method.brief}` : method.brief;
  return own.length > 0 ? `${brief} Errors: ${own.join(', ')}.` : brief;
}

/** What an MCP tool name may be: the function-calling APIs of OpenAI and Anthropic refuse any other (a dot, say). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A method's MCP tool name: its name with every character a tool name may not hold made `_` (`agent.getCard` is the
 * tool `agent_getCard`; the SPEC's JSON-RPC method keeps its name). The registry refuses two methods with one tool name.
 */
export function toolNameOf(method: { name: string }): string {
  return method.name.replace(/[^a-zA-Z0-9_-]/g, '_');
}
