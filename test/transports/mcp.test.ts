import { Client, SdkErrorCode, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { backends } from '../support/backends';
import { registerAgent, request, startTestApp, type TestApp } from '../support/app';
import { onSurface, toolDescriptionOf, toolNameOf } from '../../src/registry/method';
import { inputSchemaOf, outputSchemaOf } from '../../src/documents/json-schema';
import { generateAccessToken } from '../../src/auth/access-tokens';
import { leanInputSchema, withRepeatsOutlined, withoutRestatements } from '../../src/documents/schema-compaction';
import { mcpAnnotations, mcpInputSchema, mcpOutputSchema, mcpResultSchema } from '../../src/transports/mcp-tools';
import type { ToolAnnotations } from '../../src/registry/method';
import { inlineRefs } from '../support/json-schema-refs';
import { marketDataNotice } from '../../src/documents/service-info';

const ACCEPT = 'application/json, text/event-stream';
const BAD_KEY = 'svc_00000000000000000000000000000000';

describe.each(backends())('MCP at /mcp on $name', (backend) => {
  let t: TestApp;
  let agent: { id: string; apiKey: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true });
    agent = await registerAgent(t, 'McpAgent');
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.close();
  });

  /**
   * The v2 SDK client over Streamable HTTP, negotiating the era (it probes with server/discover and lands on
   * 2026-07-28 here), with an optional bearer key on every request. 2025-era clients: mcp-protocol-versions.test.ts.
   */
  async function connect(apiKey?: string, address = '/mcp'): Promise<Client> {
    const headers: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${address}`), { requestInit: { headers } });
    const client = new Client({ name: 'test-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** A raw JSON-RPC POST with no `_meta` envelope (a 2025-era request), for what the SDK client cannot show (status codes, headers). */
  function post(body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
    });
  }

  const text = (r: CallToolResult) => JSON.parse((r.content[0] as { type: 'text'; text: string }).text);

  test('when a client without credentials lists every toolset, then every registry method on the mcp surface is a tool with its schemas and annotations', async () => {
    const client = await connect(undefined, '/mcp/x/all');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()?.name).toBe('paper-trading-service');
    expect(client.getInstructions()).toContain('register_account');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const offered = t.services.registry.methods.filter((m) => onSurface(m, 'mcp'));
    expect(offered.length).toBeGreaterThan(0);
    expect(tools).toHaveLength(offered.length);
    for (const m of t.services.registry.methods) {
      const tool = byName.get(toolNameOf(m));
      if (!onSurface(m, 'mcp')) {
        expect(tool).toBeUndefined();
        continue;
      }
      expect(tool).toBeDefined();
      // The brief a model reads, then the codes particular to the tool (the full description stays in /openapi.json and llms-full.txt).
      expect(tool!.description).toBe(toolDescriptionOf(m));
      // A deprecated alias names the method to use first (issue 50 item 2).
      expect(tool!.description!.startsWith(m.deprecated ? `Deprecated: use ${m.deprecated.use}. ${m.brief}` : m.brief)).toBe(true);
      for (const code of m.errors ?? []) if (code !== 'VALIDATION_ERROR' && code !== 'RATE_LIMITED') expect(tool!.description).toContain(code);
      expect(tool!.title).toBe(m.annotations.title ?? m.summary);
      // Hints at their MCP defaults are left out; what a client reads is the method's.
      expect(tool!.annotations).toEqual(mcpAnnotations(m));
      expect(hintsAsRead(tool!.annotations ?? {})).toEqual(hintsAsRead(m.annotations));
      const input = tool!.inputSchema as { type: string; properties?: Record<string, Record<string, unknown>> };
      expect(input.type).toBe('object');
      expect(input).toEqual(mcpInputSchema(m));
      for (const [name, property] of Object.entries((inputSchemaOf(m).properties ?? {}) as Record<string, Record<string, unknown>>)) {
        const sent = input.properties![name]!;
        // A deprecated alias stays, marked (its note is in the docs, at any depth); every other argument is the method's, respelled.
        if (property.deprecated === true) expect(sent).toMatchObject({ deprecated: true });
        else if (name !== 'idempotencyKey') expect(sent).toEqual(leanInputSchema(property));
      }
      if (m.idempotent) expect(input.properties).toHaveProperty('idempotencyKey');
      if (m.name === 'place_orders') {
        // A deprecated alias inside an argument's items is kept and marked too, without its note.
        const item = (input.properties!.orders as { items: { properties: Record<string, Record<string, unknown>> } }).items;
        expect(item.properties.size).toMatchObject({ deprecated: true });
        expect(item.properties.size).not.toHaveProperty('description');
      }
      // The output schema is the method's, compacted (mcp-output-schemas.test.ts shows it accepts the same documents).
      const output = tool!.outputSchema as { type: string; anyOf?: Array<Record<string, unknown>> };
      expect(output.type).toBe('object');
      expect(tool!.outputSchema).toEqual(mcpOutputSchema(m));
      const { type: _object, ...result } = mcpResultSchema(outputSchemaOf(m));
      // The error branch is there only where the result's schema alone would refuse an error body.
      if (output.anyOf) {
        expect(output.anyOf[0]).toEqual(withRepeatsOutlined(inlineRefs(withoutRestatements(result))));
        expect(output.anyOf[1]).toEqual({ required: ['error', 'code'] });
      } else {
        expect(output).toEqual(withRepeatsOutlined(inlineRefs(withoutRestatements({ type: 'object', ...result }))));
        expect(result).not.toHaveProperty('required');
      }
    }
    expect(byName.get('get_balance')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  test('when tools are listed, then an error branch is only the shape of the error body (its fields and codes are in the instructions), and the list stays within its size', async () => {
    const client = await connect(undefined, '/mcp?toolsets=all');
    const { tools } = await client.listTools();
    // get_market_odds has optional fields, so its result's schema keeps `required` and needs the branch to admit an error body.
    const branch = (tools.find((tool) => tool.name === 'get_market_odds')!.outputSchema as unknown as { anyOf: Array<Record<string, unknown>> }).anyOf[1]!;
    expect(branch).toEqual({ required: ['error', 'code'] });
    const instructions = client.getInstructions() ?? '';
    // How to read an output schema without `required` lists, bounds or formats is said once there too.
    expect(instructions).toMatch(/each is always sent \(null where its schema allows null\), except where an object lists its required fields/);
    for (const code of ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'RATE_LIMITED']) expect(instructions).toContain(code);
    // What descriptions would otherwise each repeat is said once there: idempotencyKey, and where market data comes from on this instance.
    expect(instructions).toMatch(/idempotencyKey .*same key and arguments returns the first result/);
    // And how a list pages: a page may end early at the byte budget, so only a null nextCursor ends a list.
    expect(instructions).toMatch(/at most 100000 bytes, so a page may end early: fewer items with a nextCursor is not the end/);
    expect(instructions).toContain(marketDataNotice(t.config));
    for (const tool of tools) expect(tool.description).not.toContain('mirrored on a delay');
    // 274 KB for 43 tools before the error branch was compacted (215 KB after), 235 KB with the four tools added since,
    // 229 KB for 47 tools before output schemas lost their descriptions and stated repeated parts once in $defs
    // (152 KB after); 172.6 KB with replace_order, close_position and the four replay tools (get_replay shows the board figures,
    // not the record's schema). Issue 34's target is 70 KB (not reached: tool descriptions, input schemas and the error
    // branches alone are over 80 KB). 179.3 KB for 56 tools with the three discussion tools (3.2 KB a tool); 151.9 KB (2.7 KB a
    // tool) once the error branch kept only error and code and output schemas were opened to additions; 173.5 KB for 62 tools
    // (2.8 KB a tool) with the vocabulary's deprecated aliases (each renamed field is stated twice for a version). 123.3 KB
    // once tools/list was respelled for MCP in one place (src/transports/mcp-tools.ts: no date-time patterns, restated types,
    // default keywords, deprecated output fields or default hints; a two-key error branch) and descriptions were rewritten for
    // a model (definitions moved to output field descriptions, which /openapi.json and llms-full.txt keep). Issue 34's target,
    // 70 KB for every tool, is not reached: descriptions are 25.3 KB, input schemas 28.7 KB, output schemas 61.2 KB
    // (`node dist/scripts/tool-list-size.js` prints the breakdown per tool). 104.4 KB once output schemas became outlines
    // (outlineOf: no value bounds or formats, no `required` list where every listed field is; the instructions say both
    // once) and the error branch was left out where a result's schema already admits every error body: output schemas
    // 61.3 → 42.4 KB. 92.8 KB once a tool's description became its method's brief (what it does, when to use it, what it
    // costs, about 250 characters, with its own error codes appended; the full text stays in /openapi.json and
    // llms-full.txt): descriptions and titles 25.4 → 13.4 KB. 91.0 KB once input field descriptions no longer restated
    // the bounds and defaults their schemas state (input schemas 28.6 → 27.0 KB). Issue 34's 70 KB is not reached: output
    // schemas (42.6 KB) are structure only, and the -3.2 KB of a nullable written as a `type` array is refused (Inspector
    // 2.12 --strict warns: type-union, see the portability test below).
    // 90.3 KB once no schema carried a $ref (issue 51 item 6): a repeat is spelled once and by its type after. 92.5 KB
    // with whoami. /mcp serves a default set since (issue 51 item 1: test/transports/mcp-toolsets.test.ts); this is `all`.
    // 98.2 KB with list_replays, cursors on six lists, the export's parts, the v1 ranking figures and the stated
    // probability's one name beside its deprecated alias (issues 49, 51, 52, 53 of 2026-12-06).
    // The bound is on the whole list and only ratchets down: a new tool must pay for itself (issue 51's bar is 100 KB).
    const size = JSON.stringify({ tools }).length;
    // 2026-12-06: `fields` on the three market lists, the deprecated venue aliases, the suite's versions and the boards'
    // references took it from 98.3 KB to 99.98 KB, at the issue's bar; their descriptions were shortened to stay under it.
    expect(size).toBeLessThanOrEqual(100 * 1024);
  });

  test('when tools are listed, then no schema is portable only in part: no `type` array (nullable is anyOf with {type: null}) and no empty schema `{}`', async () => {
    const { tools } = await (await connect(undefined, '/mcp/x/all')).listTools();
    const problems: string[] = [];
    for (const tool of tools) {
      portabilityProblems(tool.inputSchema, `${tool.name}.inputSchema`, problems);
      portabilityProblems(tool.outputSchema, `${tool.name}.outputSchema`, problems);
    }
    expect(problems).toEqual([]);
    // An error branch is what tells an error from a result (error and code); its optional fields are in the instructions.
    const errorBranch = (tools.find((tool) => tool.name === 'get_market_odds')!.outputSchema as unknown as { anyOf: Array<Record<string, unknown>> }).anyOf[1]!;
    expect(errorBranch).toEqual({ required: ['error', 'code'] });
    // And the walk does see what it forbids.
    const seen: string[] = [];
    portabilityProblems({ type: 'object', properties: { a: { type: ['string', 'null'] }, b: {} } }, 'probe', seen);
    expect(seen).toEqual(['probe.properties.a: type is an array', 'probe.properties.b: empty schema']);
  });

  test('when get_balance is called with a bearer key, then structuredContent is the balance and the text block holds the same JSON', async () => {
    const client = await connect(agent.apiKey);
    await client.listTools();
    const result = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    expect(result.content).toHaveLength(1);
    expect(text(result)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when a keyed tool is called without credentials, then HTTP 401 with a Bearer challenge naming the MCP resource metadata, so an OAuth client starts its flow', async () => {
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_balance', arguments: {} } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    // The body still tells an agent reading it what to do, under an implementation-defined JSON-RPC code: MCP keeps
    // -32020..-32099 for its own errors since 2026-07-28.
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32000, data: { code: 'UNAUTHORIZED', httpStatus: 401, hint: expect.stringContaining('Bearer') } },
    });
    // The SDK client without an auth provider sees the 401 as a thrown HTTP error.
    await expect((await connect()).callTool({ name: 'get_balance', arguments: {} })).rejects.toMatchObject({ status: 401 });
  });

  test.each([
    [
      'initialize',
      { jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
    ],
    ['tools/list', { jsonrpc: '2.0', id: 4, method: 'tools/list' }],
    ['a public tool', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'list_market_categories', arguments: {} } }],
  ])('when %s is sent without credentials, then HTTP 200 with a result and no challenge', async (_label, body) => {
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const json = (await res.json()) as { result?: { isError?: boolean } };
    expect(json.result).toBeDefined();
    expect(json.result!.isError).toBeFalsy();
  });

  test('when a keyed tool is called with a token that lacks scope agent, then HTTP 403 with error="insufficient_scope" and scope="agent"', async () => {
    const [{ api_key_hash }] = await t.services.db.query<{ api_key_hash: string }>('SELECT api_key_hash FROM users WHERE id = $1', [agent.id]);
    // No scope other than agent is issued today; a token with another scope must still not pass as agent.
    const issued = await t.services.identity.tokens.issue({
      token: generateAccessToken(),
      userId: agent.id,
      keyHash: api_key_hash!,
      audience: `${t.baseUrl}/mcp`,
      scopes: ['read'],
      now: t.services.clock.now(),
    });
    const res = await post(
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_balance', arguments: {} } },
      { authorization: `Bearer ${issued.token}` },
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(new RegExp(`^Bearer resource_metadata="${t.baseUrl}/\\.well-known/oauth-protected-resource/mcp", error="insufficient_scope"`));
    expect(challenge).toContain('scope="agent"');
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 5, error: { data: { code: 'FORBIDDEN', httpStatus: 403 } } });
  });

  test('when the same caller asks REST and MCP for get_balance, then both give the same data', async () => {
    const fresh = await registerAgent(t, 'Same');
    const rest = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${fresh.apiKey}`);
    expect(rest.status).toBe(200);
    const client = await connect(fresh.apiKey);
    const result = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expect(result.structuredContent).toEqual(rest.body);
  });

  test('when an agent registers over MCP without credentials, then the key in the result works on REST', async () => {
    const client = await connect();
    const email = `mcp-${Date.now()}@example.com`;
    const result = (await client.callTool({
      name: 'register_account',
      arguments: { email, password: 'password123', displayName: 'McpBot', isAgent: true },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const user = (result.structuredContent as { user: { apiKey: string; email: string } }).user;
    expect(user.email).toBe(email);
    const rest = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${user.apiKey}`);
    expect(rest.body).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when tool arguments fail validation, then isError with VALIDATION_ERROR and the issues, and nothing is stored', async () => {
    const client = await connect();
    await client.listTools();
    const before = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
    const result = (await client.callTool({
      name: 'register_account',
      arguments: { email: 'not-an-email', password: 'password123', displayName: 'Bot' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'email' })] });
    const after = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test('when the key is passed as a tool argument instead of the header, then isError UNAUTHORIZED says where it belongs', async () => {
    const client = await connect();
    const result = (await client.callTool({ name: 'get_balance', arguments: { apiKey: agent.apiKey } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      code: 'UNAUTHORIZED',
      error: expect.stringContaining('tool arguments'),
      hint: expect.stringContaining('Authorization'),
    });
  });

  test('when an unknown tool is called, then a protocol error -32602 (MCP tools spec) with ENDPOINT_NOT_FOUND pointing at tools/list', async () => {
    const client = await connect();
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: no_such_tool',
      data: { code: 'ENDPOINT_NOT_FOUND', hint: expect.stringContaining('tools/list') },
    });
  });

  test('when a client connects with an invalid bearer, then its server/discover probe fails with HTTP 401', async () => {
    await expect(connect(BAD_KEY)).rejects.toMatchObject({ code: SdkErrorCode.ClientHttpAuthentication, status: 401 });
  });

  test.each([
    ['tools/list (checked before dispatch)', { jsonrpc: '2.0', id: 7, method: 'tools/list' }],
    ['a public tool (checked before it runs)', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'register_account', arguments: {} } }],
    ['a keyed tool (checked by the call itself)', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_balance', arguments: {} } }],
  ])('when %s carries an invalid bearer, then 401 with a Bearer challenge naming the MCP resource metadata', async (_label, body) => {
    const res = await post(body, { authorization: `Bearer ${BAD_KEY}` });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('error="invalid_token"');
    const json = await res.json();
    expect(json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { code: 'UNAUTHORIZED' } } });
  });

  test('when a client follows the 401 challenge, then the metadata names /mcp as the resource and this server as its authorization server', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: 'Bearer not-a-token' });
    const url = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')![1]!;
    const meta = (await (await fetch(url)).json()) as { resource: string; authorization_servers: string[] };
    expect(meta.resource).toBe(`${t.baseUrl}/mcp`);
    expect(meta.authorization_servers).toContain(t.baseUrl);
  });

  test('when a request comes from a foreign Origin, then 403 with a JSON-RPC error and nothing runs', async () => {
    const before = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'register_account', arguments: { email: `o${Date.now()}@example.com`, password: 'password123', displayName: 'Evil', isAgent: true } },
      },
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'FORBIDDEN' } } });
    const after = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test('when the Origin is a loopback name on another port, then the request is served', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'http://localhost:5173' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBeGreaterThan(0);
  });

  test('when the Host header names a foreign host (DNS rebinding), then 403 with a JSON-RPC error', async () => {
    const res = await request(t.app)
      .post('/mcp')
      .set('Host', 'attacker.example:80')
      .set('Accept', ACCEPT)
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'FORBIDDEN' } } });
  });

  test.each(['GET', 'DELETE'])('when %s /mcp is sent (no SSE stream, no session in stateless mode), then 405 with a JSON body', async (verb) => {
    const res = await fetch(`${t.baseUrl}/mcp`, { method: verb, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: { data: { code: 'METHOD_NOT_ALLOWED' } } });
  });

  test('when the client does not accept both JSON and SSE, then 406 with a JSON body', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Not Acceptable') } });
  });

  test('when the body is not JSON, then 400 with JSON-RPC parse error -32700', async () => {
    const res = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT }, body: '{"jsonrpc": ' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  test('when a tools/call is sent without initialize (stateless), then it is answered with a request id header', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'get_balance', arguments: {} } },
      { authorization: `Bearer ${agent.apiKey}` },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 'a', result: { structuredContent: { balance: 1000, reserved: 0, available: 1000 } } });
  });
});

// Keywords whose value is a map of names to schemas, and keywords whose value is data rather than a schema.
const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas']);
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required']);

/** Each tool hint as a client reads it, the MCP defaults filled in (destructive and idempotent only mean something for a tool that writes). */
function hintsAsRead(a: ToolAnnotations) {
  const readOnly = a.readOnlyHint ?? false;
  return {
    readOnly,
    destructive: readOnly ? undefined : (a.destructiveHint ?? true),
    idempotent: readOnly ? undefined : (a.idempotentHint ?? false),
    openWorld: a.openWorldHint ?? true,
  };
}

/** What the MCP Inspector's schema portability check warns about: `type: [X, "null"]` and `{}` (a schema with no keyword). */
function portabilityProblems(node: unknown, path: string, out: string[]): void {
  if (Array.isArray(node)) return node.forEach((n, i) => portabilityProblems(n, `${path}[${i}]`, out));
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (Object.keys(schema).length === 0) out.push(`${path}: empty schema`);
  if (Array.isArray(schema.type)) out.push(`${path}: type is an array`);
  for (const [k, v] of Object.entries(schema)) {
    if (DATA.has(k)) continue;
    if (SCHEMA_MAPS.has(k) && v && typeof v === 'object') {
      for (const [name, sub] of Object.entries(v)) portabilityProblems(sub, `${path}.${k}.${name}`, out);
    } else portabilityProblems(v, `${path}.${k}`, out);
  }
}
