import type { Request } from 'express';
import { AppError } from '../errors/app-error';
import { ALL_TOOLSETS, DEFAULT_TOOLSET, TOOLSET_NAMES } from '../registry/toolsets';

/** Which tools one request to the MCP endpoint sees and may call. */
export interface ToolSelection {
  /** Toolset names (src/registry/toolsets.ts), `default` or `all`, sorted: also the cache key of the tool list. */
  toolsets: string[];
  /** Only tools that change nothing (readOnlyHint). */
  readOnly: boolean;
}

/** The MCP endpoint's addresses: the default set, read-only, one or more toolsets by path (comma-separated). */
export const MCP_PATHS = ['/mcp', '/mcp/readonly', '/mcp/x/:toolsets', '/mcp/x/:toolsets/readonly'];

export const KNOWN_TOOLSETS = [DEFAULT_TOOLSET, ALL_TOOLSETS, ...TOOLSET_NAMES];

/**
 * The selection a request asks for, GitHub's hosted MCP pattern: the path (`/mcp/x/markets,orders`), else the query
 * (`?toolsets=markets,orders`), else the `X-MCP-Toolsets` header, else the default set; read-only when the path ends in
 * `/readonly`, or `?readonly=true`, or `X-MCP-Readonly: true`. A name it does not know is VALIDATION_ERROR listing the known.
 */
export function selectionOf(req: Request): ToolSelection {
  const named = listOf(req.params.toolsets) ?? listOf(req.query.toolsets) ?? listOf(req.get('x-mcp-toolsets')) ?? [DEFAULT_TOOLSET];
  const unknown = named.filter((n) => !KNOWN_TOOLSETS.includes(n));
  if (unknown.length > 0 || named.length === 0) {
    throw new AppError('VALIDATION_ERROR', `Unknown toolset${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ') || '(none named)'}.`, {
      hint: `Known toolsets: ${KNOWN_TOOLSETS.join(', ')}. Name them in the path (/mcp/x/markets,orders), ?toolsets= or the X-MCP-Toolsets header.`,
      details: unknown.map((n) => ({ path: 'toolsets', message: `unknown toolset ${n}; known: ${KNOWN_TOOLSETS.join(', ')}`, code: 'invalid_value' })),
    });
  }
  const readOnly = req.path.endsWith('/readonly') || flag(req.query.readonly, 'readonly') || flag(req.get('x-mcp-readonly'), 'X-MCP-Readonly');
  return { toolsets: [...new Set(named)].sort(), readOnly };
}

/** A comma-separated list (a repeated query parameter counts too); undefined when the source says nothing. */
function listOf(value: unknown): string[] | undefined {
  const text = Array.isArray(value) ? value.join(',') : value;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new AppError('VALIDATION_ERROR', `${name} must be true or false.`, { hint: 'Send readonly=true for the read-only tools only.' });
}
