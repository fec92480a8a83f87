import { onSurface, type AnyMethod } from '../registry/method';
import { defaultPageOf, isListMethod, maxPageOf, NESTED_LISTS, PAGE_BYTES_BOUND } from '../registry/pages';

/** How a REST path reads in the reference: `:id` as `{id}`, and a status other than 200 beside it. */
function restOf(m: AnyMethod): string {
  if (!m.rest) return '—';
  const path = m.rest.path.replace(/:(\w+)/g, '{$1}');
  return `\`${m.rest.method} ${path}\`${m.rest.status && m.rest.status !== 200 ? ` (${m.rest.status})` : ''}`;
}

function surfacesOf(m: AnyMethod): string {
  const mcp = onSurface(m, 'mcp');
  const rpc = onSurface(m, 'jsonrpc');
  if (mcp && rpc) return 'all';
  return ['REST', ...(rpc ? ['JSON-RPC'] : []), ...(mcp ? ['MCP'] : [])].join(', ');
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/**
 * docs/methods.md, the methods reference, made from the registry (npm run schemas writes it; a test fails when the
 * committed file differs), so the list can never drift from what the service serves.
 */
export function methodsReference(methods: readonly AnyMethod[]): string {
  const areas = new Map<string, AnyMethod[]>();
  for (const m of methods) areas.set(m.area, [...(areas.get(m.area) ?? []), m]);
  const lines = [
    '# Methods',
    '',
    '<!-- Generated from the method registry by `npm run schemas`; edit the methods in src/methods/, not this file. -->',
    '',
    `The ${methods.length} registry methods, by area. The name is the JSON-RPC method, A2A skill id and MCP tool name; each`,
    "method's input and output JSON Schemas are in `schemas/`, and `/openapi.json` has the whole REST contract.",
    '',
    'Auth: **public** reads no credentials; **key** needs a bearer API key or OAuth access token (scope `agent`), or a browser',
    'session; **optional** is key without the requirement (authenticated callers get more); **session** accepts only the',
    'browser session cookie. Session methods are never JSON-RPC methods or MCP tools. Inputs are strict: a field a method',
    'does not declare is refused with `VALIDATION_ERROR`.',
  ];
  for (const [area, list] of areas) {
    lines.push('', `## ${area}`, '', '| method | REST | auth | rate class | surfaces | what it does |', '|---|---|---|---|---|---|');
    for (const m of list) lines.push(`| \`${m.name}\` | ${restOf(m)} | ${m.auth} | ${m.limit} | ${surfacesOf(m)} | ${cell(m.summary)} |`);
  }
  lines.push(
    '',
    '## Pages',
    '',
    'Each list method answers a page (`limit`) and a `nextCursor` to pass as `cursor` for the next. Its maximum page is the',
    `most \`limit\` takes. No answer exceeds ${PAGE_BYTES_BOUND} bytes (about 25,000 tokens): a page that would ends early,`,
    'with fewer items than `limit` and a `nextCursor` at the first item left out, so paging on loses and repeats nothing',
    '(`limit` is a maximum, not a promise). Fewer items with a cursor is therefore normal paging; only `nextCursor: null`',
    'ends a list. A page ends between items, never inside one; the lists that grow inside an item are in the last column.',
    'Measured at each maximum page over data at full length by test/registry/page-bounds.test.ts.',
    '',
    '| method | maximum page | default page | lists inside an item |',
    '|---|---|---|---|',
  );
  for (const m of methods.filter(isListMethod)) {
    lines.push(`| \`${m.name}\` | ${maxPageOf(m)} | ${defaultPageOf(m)} | ${cell(NESTED_LISTS.get(m.name) ?? '')} |`);
  }
  return lines.join('\n') + '\n';
}
