import { ProtocolError, ProtocolErrorCode, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { onSurface, toolDescriptionOf, toolNameOf, type AnyMethod, type ToolAnnotations } from '../registry/method';
import type { Registry } from '../registry/registry';
import { ALL_TOOLSETS, methodsOf } from '../registry/toolsets';
import type { ToolSelection } from './mcp-selection';
import type { CallInfo } from '../registry/context';
import { carriesCredential } from './http-call';
import { methodDocsUrl } from '../documents/service-info';
import { invoke, type InvokeDeps } from '../registry/invoke';
import { AppError, toAppError } from '../errors/app-error';
import { ErrorBodySchema } from '../errors/error-body';
import { inputSchemaOf, outputSchemaOf, toJsonSchema, type JsonSchema } from '../documents/json-schema';
import {
  leanInputSchema,
  openToAdditions,
  outlineOf,
  withRepeatsOutlined,
  withoutDeprecatedProperties,
  withoutDescriptions,
  withoutRestatements,
} from '../documents/schema-compaction';

export interface McpTools {
  /** The tools/list result of one selection, built once and served as is. */
  list: { tools: Tool[] };
  /**
   * The tools a call may name: every MCP tool, whatever the toolsets listed (a client set up before toolsets, or one that
   * knows a tool's name, keeps working on /mcp), but on a read-only selection only the read-only ones.
   */
  byName: Map<string, AnyMethod>;
}

export interface ToolOutcome {
  result: CallToolResult;
  /** The call needs credentials the request lacks, or its bearer was refused (invalid, expired, wrong audience or scope): mcp.ts answers it at the HTTP level. */
  rejection?: AppError;
}

/**
 * One tool per registry method offered on MCP, with its schemas computed once (per process: see mcpOutputSchema); with
 * a selection (src/transports/mcp-selection.ts), only its toolsets' tools.
 */
export function buildMcpTools(registry: Registry, selection: ToolSelection = EVERY_TOOL): McpTools {
  const byName = new Map<string, AnyMethod>();
  for (const method of methodsOf(registry.methods, { toolsets: [ALL_TOOLSETS], readOnly: selection.readOnly })) {
    if (onSurface(method, 'mcp')) byName.set(toolNameOf(method), method);
  }
  const tools = methodsOf(registry.methods, selection)
    .filter((m) => onSurface(m, 'mcp'))
    .map(toolOf);
  return { list: { tools }, byName };
}

const EVERY_TOOL: ToolSelection = { toolsets: [ALL_TOOLSETS], readOnly: false };

/** The tool lists of the selections asked for, each built once (a handful of addresses in practice; at most 2 × 2^12). */
export function mcpToolsets(registry: Registry): (selection: ToolSelection) => McpTools {
  const built = new Map<string, McpTools>();
  return (selection) => {
    const key = `${selection.toolsets.join(',')}${selection.readOnly ? ':readonly' : ''}`;
    let tools = built.get(key);
    if (!tools) built.set(key, (tools = buildMcpTools(registry, selection)));
    return tools;
  };
}

const toolCache = new WeakMap<AnyMethod, Tool>();

function toolOf(method: AnyMethod): Tool {
  let tool = toolCache.get(method);
  if (!tool) {
    tool = {
      name: toolNameOf(method),
      title: toolTitle(method),
      description: toolDescriptionOf(method),
      inputSchema: mcpInputSchema(method) as Tool['inputSchema'],
      outputSchema: mcpOutputSchema(method) as Tool['outputSchema'],
      annotations: mcpAnnotations(method),
    };
    toolCache.set(method, tool);
  }
  return tool;
}

/**
 * A tool's output schema as tools/list sends it: the method's output or the error body, accepting exactly what the
 * full schema accepts, spelled for a model's context (issue 34 item 3): no descriptions (the tool's description is
 * what the model reads; /openapi.json and llms-full.txt keep every field's), with no `$ref` (issue 51 item 6): a subschema
 * repeated within the tool (a benchmark estimate) is spelled in full once and by its type after (withRepeatsOutlined).
 */
export function mcpOutputSchema(method: AnyMethod): JsonSchema {
  const output = outputSchemaOf(method);
  let schema = mcpOutputs.get(output);
  if (!schema) {
    errorBranch ??= compactError(toJsonSchema(ErrorBodySchema, 'output'));
    errorFields ??= Object.keys(toJsonSchema(ErrorBodySchema, 'output').properties as JsonSchema);
    schema = withRepeatsOutlined(admittingErrors(withoutRestatements(mcpResultSchema(output)), errorBranch, errorFields));
    mcpOutputs.set(output, schema);
  }
  return schema;
}

/**
 * What an MCP client is told a result is, before it is spelled compactly: the method's output without descriptions,
 * open to additions, without deprecated fields (accepted as additions), reduced to its outline (outlineOf: no value
 * bounds, no `required` where every listed field is). It accepts more than /openapi.json's schema,
 * on purpose (see openToAdditions); withoutRestatements only respells it, withRepeatsOutlined opens repeats.
 */
export const mcpResultSchema = (output: JsonSchema): JsonSchema => outlineOf(withoutDeprecatedProperties(openToAdditions(withoutDescriptions(output))));

// Once per process: every app a test starts lists the same tools.
const mcpOutputs = new WeakMap<JsonSchema, JsonSchema>();
let errorBranch: JsonSchema | undefined;
let errorFields: string[] | undefined;

/**
 * The error branch every tool's output schema carries, kept to its shape: field descriptions and the list of codes are
 * stated once, in the server's instructions (ERROR_BODY_NOTE), not 43 times in tools/list (issue 34 item 3: the branch
 * was 80 KB of a 274 KB list).
 */
export function compactError(schema: JsonSchema): JsonSchema {
  const { required } = schema as { required: string[] };
  // Only what tells an error from a result, the two fields every error body has (no result has both): their types and
  // the optional fields are in the instructions, and a branch open to them accepts every error body (it was 509 bytes in
  // each of 56 tools: 28 KB of a 179 KB list; 100 bytes with the two fields' types, 6 KB of 62 tools). The root's
  // `type: object` applies to it.
  if (!required.includes('error') || !required.includes('code')) throw new Error('the error body must require error and code');
  return { required: ['error', 'code'] };
}

const toolTitle = (method: AnyMethod) => method.annotations.title ?? method.summary;

/**
 * The method's annotations as tools/list sends them: a hint that says what a client assumes without it (MCP
 * ToolAnnotations: readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true; destructive and
 * idempotent mean nothing for a read-only tool) and a title the tool's own title repeats are left out.
 */
export function mcpAnnotations(method: AnyMethod): ToolAnnotations {
  const { title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = method.annotations;
  const lean: ToolAnnotations = {};
  if (title !== undefined && title !== toolTitle(method)) lean.title = title;
  if (readOnlyHint) lean.readOnlyHint = true;
  else {
    if (destructiveHint === false) lean.destructiveHint = false;
    if (idempotentHint) lean.idempotentHint = true;
  }
  if (openWorldHint === false) lean.openWorldHint = false;
  return lean;
}

/** What `idempotencyKey` means, said once in the server's instructions (src/transports/mcp-server.ts). */
const IDEMPOTENCY_KEY: JsonSchema = { type: 'string', minLength: 1, maxLength: 255, description: 'See the instructions.' };

/**
 * A tool's input schema as tools/list sends it: the method's input, accepting the same arguments, spelled for a
 * model's context (issue 34 item 3). Idempotent methods read `idempotencyKey` from the arguments on MCP (no headers
 * per call): it is advertised on each, its meaning stated once in the instructions. A deprecated alias keeps
 * `deprecated: true` and loses its description, and date-time patterns and types restated by an enum go (leanInputSchema,
 * which the agent card's skill input schemas share).
 */
export function mcpInputSchema(method: AnyMethod): JsonSchema {
  let schema = mcpInputs.get(method);
  if (!schema) {
    const full = inputSchemaOf(method);
    const properties = { ...((full.properties ?? {}) as Record<string, JsonSchema>) };
    if (method.idempotent || 'idempotencyKey' in properties) properties.idempotencyKey = IDEMPOTENCY_KEY;
    schema = leanInputSchema({ ...full, properties });
    mcpInputs.set(method, schema);
  }
  return schema;
}

const mcpInputs = new WeakMap<AnyMethod, JsonSchema>();

/**
 * The method's output schema, or the error body. Error results carry the error body as structuredContent,
 * and the 1.x TypeScript SDK client (including 1.32, still common among 2025-era clients) checks
 * structuredContent against outputSchema even when isError is true (modelcontextprotocol/typescript-sdk#1943;
 * the v2 client skips error results), so an exact schema would turn every tool error into a client-side schema
 * failure that hides our code and hint.
 */
function admittingErrors(output: JsonSchema, error: JsonSchema, errorFields: string[]): JsonSchema {
  // A result schema that is only optional properties, none named like an error body's, already accepts every error
  // body (it is open to additions): the branch would add nothing (62 tools × 60 bytes).
  const properties = (output.properties ?? {}) as JsonSchema;
  const onlyOptional = Object.keys(output).every((k) => k === 'type' || k === 'properties');
  if (onlyOptional && !errorFields.some((f) => f in properties)) return output;
  // The root says `type: object` (MCP requires it there), so neither branch repeats it.
  const { type: _object, ...success } = output;
  return { type: 'object', anyOf: [success, error] };
}

/**
 * An Authorization header that is missing where a key is needed, or refused (the authenticator attaches an RFC 6750
 * challenge to both). A key pasted into the arguments is not one: its hint (rotate the key) belongs in the result.
 */
export function isCredentialChallenge(err: unknown, call: CallInfo): boolean {
  return err instanceof AppError && !call.credentials.misplaced && err.headers?.['WWW-Authenticate'] !== undefined;
}

/** Runs a tools/call through the one invoke pipeline and builds the result, success or error, ourselves; a tool `tools` cannot call is unknown. */
export function toolCaller(deps: InvokeDeps) {
  const errorResult = (err: unknown, call: CallInfo, method: AnyMethod): CallToolResult => {
    const appErr = toAppError(err);
    if (appErr.status >= 500) {
      deps.log.error('mcp tool call failed', {
        requestId: call.requestId,
        code: appErr.code,
        err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
      });
    }
    const body = appErr.toBody(call.requestId);
    if (!body.docs) body.docs = methodDocsUrl(call.address.origin, method);
    return { isError: true, structuredContent: { ...body }, content: [{ type: 'text', text: JSON.stringify(body) }] };
  };

  return async (tools: McpTools, name: string, args: Record<string, unknown> | undefined, requestCall: CallInfo): Promise<ToolOutcome> => {
    const method = tools.byName.get(name);
    // An unknown tool is a protocol error, not a tool result (MCP tools spec, "Error Handling", 2025-06-18 onwards):
    // -32602, with our code and hint in the error data.
    if (!method) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`, {
        code: 'ENDPOINT_NOT_FOUND',
        hint: 'Call tools/list for the tools of this address; other toolsets are at /mcp/x/{toolset} (all: every tool).',
        docs: `${requestCall.address.origin}/llms-full.txt`,
      });
    }
    // Each call gets its own CallInfo: an idempotency key belongs to one call of a batch, not to all of them.
    const call: CallInfo = { ...requestCall };
    let input: Record<string, unknown> = args ?? {};
    // A key pasted into the arguments is refused with a hint, like a key in a REST body.
    if (carriesCredential(input)) call.credentials = { ...call.credentials, misplaced: 'tool arguments' };
    if (typeof input.idempotencyKey === 'string') {
      const { idempotencyKey, ...rest } = input;
      call.idempotencyKey = idempotencyKey as string;
      input = rest;
    }
    try {
      const value = (await invoke(deps, method, input, call)) as Record<string, unknown>;
      return { result: { structuredContent: value, content: [{ type: 'text', text: JSON.stringify(value) }] } };
    } catch (err) {
      return { result: errorResult(err, call, method), ...(isCredentialChallenge(err, call) ? { rejection: err as AppError } : {}) };
    }
  };
}
