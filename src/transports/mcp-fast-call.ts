import { SUPPORTED_PROTOCOL_VERSIONS, isJsonContentType } from '@modelcontextprotocol/server';
import type { McpTools } from './mcp-tools';

/** A 2025-era tools/call the SDK would answer exactly as fastCallBody does: its id, the tool and its arguments. */
export interface FastCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
}

type HeaderValue = string | string[] | undefined;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The one request a trading agent sends most, answered without building the SDK's Server and transport for it: a single
 * 2025-era `tools/call` (no `_meta` envelope, no 2026 headers) of a known tool, with the headers the SDK's stateless
 * transport accepts. That per-request machinery cost an MCP trade about half a millisecond of CPU more than REST's
 * (bench:mcp). Anything else — a batch, initialize, tools/list, an unknown tool, a malformed message, a header the SDK
 * would refuse, the 2026-07-28 revision — returns undefined and goes to the SDK, which owns every protocol error.
 * test/transports/mcp-fast-call.test.ts checks the answer is the SDK's, byte for byte.
 */
export function fastToolCall(body: unknown, header: (name: string) => HeaderValue, tools: McpTools): FastCall | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  if (!Object.keys(body).every((k) => k === 'jsonrpc' || k === 'id' || k === 'method' || k === 'params')) return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return undefined;
  if (!isPlainObject(params) || !Object.keys(params).every((k) => k === 'name' || k === 'arguments')) return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || !tools.byName.has(name)) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const accept = header('accept');
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const contentType = header('content-type');
  if (typeof contentType !== 'string' || !isJsonContentType(contentType)) return undefined;
  const version = header('mcp-protocol-version');
  if (version !== undefined && !(typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  if (header('mcp-method') !== undefined || header('mcp-name') !== undefined || header('mcp-session-id') !== undefined) return undefined;
  return { id, name, args };
}

/**
 * The SDK's JSON answer to one request: `{ result, jsonrpc, id }` (Protocol's response message), the result's keys in the
 * order the SDK's CallToolResult schema gives them when it parses a handler's result (`_meta`, content,
 * structuredContent, isError, then any other).
 */
export function fastCallBody(id: string | number, result: Record<string, unknown>): string {
  const { _meta, content, structuredContent, isError, ...rest } = result;
  const ordered = { _meta, content, structuredContent, isError, ...rest };
  return JSON.stringify({ result: ordered, jsonrpc: '2.0', id });
}
