import type { Config } from '../config';
import { ERROR_CODES, ERROR_TABLE } from '../errors/app-error';
import { onSurface, type AnyMethod, type Area, type AuthMode } from '../registry/method';
import type { Registry } from '../registry/registry';
import type { AnyStream } from '../registry/stream';
import { inputSchemaOf, outputSchemaOf, toJsonSchema, type JsonSchema } from './json-schema';
import { withSharedDefs, withoutRestatements } from './schema-compaction';
import { errorCodesOf, limitText, streamErrorCodes } from './openapi';
import { ERROR_MEANING } from './openapi-parts';
import type { Block, Inline, Page } from './page';
import { kbText, toolsetListings } from './toolset-listing';
import { ALL_TOOLSETS, DEFAULT_TOOLSET } from '../registry/toolsets';
import { AREAS, SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice, methodDocsUrl } from './service-info';

/** The content pages (llms.txt and landing page, llms-full.txt, area pages), all generated from the registry. */

const AUTH_TEXT: Record<AuthMode, string> = {
  public: 'public: no credentials needed',
  key: 'API key or OAuth access token (scope agent) as Authorization: Bearer <token>',
  session: 'browser session only (cookie svc.session-token); API keys and access tokens are refused',
  optional: 'optional: works anonymously; with a key or token the answer also covers your own account',
};

function areasInUse(registry: Registry): Area[] {
  return (Object.keys(AREAS) as Area[]).filter((a) => registry.methods.some((m) => m.area === a));
}

const restLine = (m: AnyMethod): Inline[] =>
  m.rest ? [{ code: `${m.rest.method} ${m.rest.path.replace(/:(\w+)/g, '{$1}')}` }] : ['not on REST (JSON-RPC and MCP only)'];

/** One line of llms.txt per method: link to its docs entry, summary, REST route and auth. */
function indexEntry(m: AnyMethod, base: string): Inline[] {
  return [{ link: m.name, href: methodDocsUrl(base, m) }, `: ${m.summary}. `, ...restLine(m), ` (${m.auth})`];
}

/** llms.txt, and the landing page in markdown and HTML: one source. */
export function landingPage(registry: Registry, config: Config, base: string): Page {
  const blocks: Block[] = [{ heading: 1, text: SERVICE_TITLE }, { quote: [SERVICE_SUMMARY] }, { paragraph: [marketDataNotice(config)] }];
  const register = registry.get('register_account');
  if (register?.rest) {
    blocks.push({
      paragraph: [
        'Agent quickstart: register with ',
        { code: 'isAgent: true' },
        ' at ',
        ...restLine(register),
        ' to receive an API key (shown once), then send ',
        { code: 'Authorization: Bearer <API_KEY>' },
        ' on every keyed call, over REST, JSON-RPC or MCP. A new account starts with 1000 virtual dollars.',
      ],
    });
  }
  blocks.push(
    { heading: 2, text: 'Documents and endpoints' },
    {
      list: [
        [
          { link: 'OpenAPI 3.1 document', href: `${base}/openapi.json` },
          ': every REST operation with schemas, errors, security and examples (mirror: ',
          { code: '/api/openapi.json' },
          ').',
        ],
        [{ link: 'llms-full.txt', href: `${base}/llms-full.txt` }, ': every method in full, with input and output JSON Schema.'],
        [
          { link: 'MCP endpoint', href: `${base}/mcp` },
          ': Streamable HTTP; one tool per method. initialize and tools/list need no credentials; send the bearer header for keyed tools.',
        ],
        [
          { link: 'A2A JSON-RPC endpoint', href: `${base}/api/a2a` },
          ': POST JSON-RPC 2.0 with a method name below as method; also A2A SendMessage and message/send. GET returns the agent card.',
        ],
        [{ link: 'A2A agent card', href: `${base}/.well-known/agent-card.json` }, ': skills = the methods below (also at /.well-known/agent.json).'],
        [{ link: 'AI plugin manifest', href: `${base}/.well-known/ai-plugin.json` }, ': legacy manifest pointing at the OpenAPI document.'],
      ],
    },
  );
  // Generated from src/registry/toolsets.ts with each set's measured tools/list, so a model picks an address by its cost.
  blocks.push(
    { heading: 2, text: 'MCP toolsets' },
    {
      paragraph: [
        { code: '/mcp' },
        ' serves the default set; pick others by path (',
        { code: '/mcp/x/{toolset}[,…]' },
        '), query (',
        { code: '?toolsets=a,b' },
        ') or the ',
        { code: 'X-MCP-Toolsets' },
        ' header; ',
        { code: '/mcp/readonly' },
        ' leaves out every tool that changes state. REST and JSON-RPC serve every method.',
      ],
    },
    {
      list: toolsetListings(registry.methods).map((t): Inline[] => [
        { code: t.name === DEFAULT_TOOLSET ? '/mcp' : `/mcp/x/${t.name}` },
        ` (${t.tools.length} tools, ${kbText(t.bytes)}): ${t.description}`,
        ...(t.name === ALL_TOOLSETS ? [] : [` Tools: ${t.tools.join(', ')}.`]),
      ]),
    },
  );
  for (const area of areasInUse(registry)) {
    const page = `${base}/docs/${AREAS[area].slug}`;
    blocks.push(
      { heading: 2, text: area },
      {
        list: [
          [{ link: `${area} reference`, href: page }, `: ${AREAS[area].description(config)}`],
          ...registry.methods.filter((m) => m.area === area).map((m) => indexEntry(m, base)),
        ],
      },
    );
  }
  if (registry.streams.length) {
    blocks.push(
      { heading: 2, text: 'Pushed events (Server-Sent Events)' },
      { list: registry.streams.map((s) => [{ link: s.name, href: methodDocsUrl(base, s) }, `: ${s.summary}. `, { code: `GET ${s.path}` }, ` (${s.auth})`]) },
    );
  }
  blocks.push(
    { heading: 2, text: 'Optional' },
    {
      list: [
        [{ link: 'Health', href: `${base}/health` }, ': liveness probe.'],
        [{ link: 'Ready', href: `${base}/ready` }, ': readiness (database, migrations, market feed).'],
      ],
    },
  );
  return { title: SERVICE_TITLE, blocks };
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/**
 * A schema as the content pages print it: descriptions kept (this is the reference), no keyword that restates another
 * (withoutRestatements: a date-time's pattern beside its format, whose rule, UTC ending in Z, the pages state once) and a
 * part repeated within the schema stated once in $defs. /openapi.json and schemas/ keep every keyword.
 */
const printed = (schema: JsonSchema): string => json(withSharedDefs(withoutRestatements(schema)));

/** What the pages say once instead of a pattern in every date-time. */
export const DATE_TIME_NOTE =
  'A date-time (format date-time) is ISO 8601: the service writes UTC with a Z suffix, fractional seconds optional; an input date-time needs the Z too, unless its schema in /openapi.json admits an offset.';

/** Everything an agent needs to call one method, on any surface. `level` is the heading level of its title. */
export function methodBlocks(m: AnyMethod, config: Config, base: string, level: 2 | 3): Block[] {
  const errors = errorCodesOf(m)
    .sort((a, b) => ERROR_TABLE[a].status - ERROR_TABLE[b].status)
    .map((c) => `${c} (${ERROR_TABLE[c].status})`)
    .join(', ');
  const blocks: Block[] = [
    { heading: level, text: m.name, id: m.name },
    { paragraph: [{ strong: m.summary }] },
    { paragraph: [m.description] },
    {
      list: [
        ['REST: ', ...restLine(m), m.rest ? ` → ${m.rest.status ?? 200}` : ''],
        onSurface(m, 'jsonrpc') ? ['JSON-RPC: method ', { code: m.name }, ` at POST ${base}/api/a2a`] : ['JSON-RPC: not offered'],
        onSurface(m, 'mcp') ? ['MCP tool: ', { code: m.name }, ` at ${base}/mcp`] : ['MCP: not offered'],
        [`Auth: ${AUTH_TEXT[m.auth]}`],
        [`Rate limit: ${limitText(m.limit, config)}`],
        ...(m.idempotent ? [['Idempotency: send an Idempotency-Key header (REST) or idempotencyKey (RPC, MCP) to make retries safe.'] as Inline[]] : []),
        [`Errors: ${errors}`],
      ],
    },
    { paragraph: [{ strong: 'Input (JSON Schema)' }] },
    { code: printed(inputSchemaOf(m)), lang: 'json' },
    { paragraph: [{ strong: 'Output (JSON Schema)' }] },
    { code: printed(outputSchemaOf(m)), lang: 'json' },
  ];
  (m.examples ?? []).forEach((e, i) => {
    blocks.push({ paragraph: [{ strong: `Example ${i + 1}` }] }, { code: json({ input: e.input, output: e.output }), lang: 'json' });
  });
  return blocks;
}

/** A stream's entry: how to open it, what it sends. */
export function streamBlocks(s: AnyStream, config: Config, base: string, level: 2 | 3): Block[] {
  const errors = streamErrorCodes(s)
    .sort((a, b) => ERROR_TABLE[a].status - ERROR_TABLE[b].status)
    .map((c) => `${c} (${ERROR_TABLE[c].status})`)
    .join(', ');
  return [
    { heading: level, text: s.name, id: s.name },
    { paragraph: [{ strong: s.summary }] },
    { paragraph: [s.description] },
    {
      list: [
        ['Server-Sent Events: ', { code: `GET ${base}${s.path}` }, ' → 200 text/event-stream (not on JSON-RPC or MCP)'],
        [`Events: ${s.eventTypes.join(', ')}${s.resumable ? ' (each with an id; resume with Last-Event-ID)' : ''}`],
        [`Auth: ${AUTH_TEXT[s.auth]}`],
        [`Rate limit: ${limitText(s.limit, config)}, counted once per connection; at most ${s.perCaller(config)} open at once per caller`],
        [`Errors before the stream starts (JSON): ${errors}`],
      ],
    },
    { paragraph: [{ strong: 'Query parameters (JSON Schema)' }] },
    { code: printed(toJsonSchema(s.input, 'input')), lang: 'json' },
    { paragraph: [{ strong: 'Event data (JSON Schema)' }] },
    { code: printed(toJsonSchema(s.event, 'output')), lang: 'json' },
  ];
}

function errorList(): Block {
  return { list: ERROR_CODES.map((c) => [{ code: c }, ` (${ERROR_TABLE[c].status}): ${ERROR_MEANING[c]}`]) };
}

/** llms-full.txt: every method in full. */
export function fullReference(registry: Registry, config: Config, base: string): Page {
  const blocks: Block[] = [
    { heading: 1, text: `${SERVICE_TITLE}: full reference` },
    { quote: [SERVICE_SUMMARY] },
    { paragraph: [marketDataNotice(config)] },
    {
      paragraph: [
        'Every method below is one operation, offered on REST (OpenAPI at ',
        { code: `${base}/openapi.json` },
        '), as a JSON-RPC 2.0 method at ',
        { code: `${base}/api/a2a` },
        ' and as an MCP tool at ',
        { code: `${base}/mcp` },
        ', with the same input, output and errors everywhere. Keyed methods take Authorization: Bearer <API_KEY or access token>.',
      ],
    },
    { paragraph: [DATE_TIME_NOTE] },
    { heading: 2, text: 'Errors' },
    {
      paragraph: [
        'REST errors are JSON { error, code, hint?, docs?, details?, requestId? }. JSON-RPC errors carry { code, hint, docs, httpStatus } in data; MCP tool errors are results with isError true and the same fields. Codes:',
      ],
    },
    errorList(),
  ];
  for (const area of areasInUse(registry)) {
    blocks.push({ heading: 2, text: area }, { paragraph: [AREAS[area].description(config)] });
    for (const m of registry.methods.filter((x) => x.area === area)) blocks.push(...methodBlocks(m, config, base, 3));
    for (const s of registry.streams.filter((x) => x.area === area)) blocks.push(...streamBlocks(s, config, base, 3));
  }
  return { title: `${SERVICE_TITLE}: full reference`, blocks };
}

/** /docs/<area-slug>: the methods of one area. */
export function areaPage(registry: Registry, config: Config, base: string, area: Area): Page {
  const blocks: Block[] = [
    { heading: 1, text: area },
    { paragraph: [AREAS[area].description(config)] },
    {
      paragraph: [
        { link: 'Home', href: `${base}/` },
        ' · ',
        { link: 'OpenAPI', href: `${base}/openapi.json` },
        ' · ',
        { link: 'llms-full.txt', href: `${base}/llms-full.txt` },
      ],
    },
  ];
  const methods = registry.methods.filter((m) => m.area === area);
  if (methods.length) blocks.push({ paragraph: [DATE_TIME_NOTE] });
  else blocks.push({ paragraph: ['No methods in this area yet.'] });
  for (const m of methods) blocks.push(...methodBlocks(m, config, base, 2));
  for (const s of registry.streams.filter((x) => x.area === area)) blocks.push(...streamBlocks(s, config, base, 2));
  return { title: `${area} · ${SERVICE_TITLE}`, blocks };
}
