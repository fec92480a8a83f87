import type { AnyMethod } from '../registry/method';
import { Registry } from '../registry/registry';
import { ALL_TOOLSETS, DEFAULT_TOOLSET, TOOLSETS, TOOLSET_NAMES } from '../registry/toolsets';
import { buildMcpTools } from '../transports/mcp-tools';

/**
 * The MCP toolsets as documents list them (llms.txt, docs/surfaces.md): each with its tools and the bytes of its
 * tools/list, measured on the very list /mcp serves, so a listing never disagrees with the endpoint.
 */
export interface ToolsetListing {
  /** What goes after /mcp/x/ (default: what /mcp serves). */
  name: string;
  description: string;
  tools: string[];
  /** Bytes of its tools/list result as JSON. */
  bytes: number;
}

const SPECIAL = {
  [DEFAULT_TOOLSET]:
    'What /mcp serves when no toolset is named: what a first conversation needs (find markets, odds and book, quote, trade with a forecast, orders, portfolio, your benchmark record).',
  [ALL_TOOLSETS]: 'Every tool.',
};

export function toolsetListings(methods: readonly AnyMethod[]): ToolsetListing[] {
  const registry = new Registry(methods);
  const listing = (name: string, description: string): ToolsetListing => {
    const { tools } = buildMcpTools(registry, { toolsets: [name], readOnly: false }).list;
    return { name, description, tools: tools.map((t) => t.name), bytes: Buffer.byteLength(JSON.stringify({ tools })) };
  };
  return [
    listing(DEFAULT_TOOLSET, SPECIAL[DEFAULT_TOOLSET]),
    ...TOOLSET_NAMES.map((name) => listing(name, TOOLSETS[name])),
    listing(ALL_TOOLSETS, SPECIAL[ALL_TOOLSETS]),
  ];
}

export const kbText = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** The markers around the generated table in docs/surfaces.md (npm run schemas rewrites what is between them). */
export const TOOLSETS_BEGIN = '<!-- toolsets: written by npm run schemas from src/registry/toolsets.ts; do not edit -->';
export const TOOLSETS_END = '<!-- /toolsets -->';

/** The toolsets as a markdown table: address, tools, size, what it is for. */
export function toolsetsTable(methods: readonly AnyMethod[]): string {
  const rows = toolsetListings(methods).map(
    (t) =>
      `| \`${t.name === DEFAULT_TOOLSET ? '/mcp' : `/mcp/x/${t.name}`}\` | ${t.tools.length} | ${kbText(t.bytes)} | ${t.description} | ${
        t.name === ALL_TOOLSETS ? 'every tool of the sets above' : t.tools.map((n) => `\`${n}\``).join(', ')
      } |`,
  );
  return ['| Address | Tools | tools/list | For | Its tools |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** docs/surfaces.md with its toolset table made current; throws when the markers are missing. */
export function withToolsetsTable(doc: string, methods: readonly AnyMethod[]): string {
  const begin = doc.indexOf(TOOLSETS_BEGIN);
  const end = doc.indexOf(TOOLSETS_END);
  if (begin < 0 || end < begin) throw new Error(`docs/surfaces.md lacks the toolset markers ${TOOLSETS_BEGIN} … ${TOOLSETS_END}`);
  return `${doc.slice(0, begin + TOOLSETS_BEGIN.length)}\n\n${toolsetsTable(methods)}\n\n${doc.slice(end)}`;
}
