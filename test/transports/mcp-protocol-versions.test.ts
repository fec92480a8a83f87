import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket } from '../support/markets';
import { onSurface, toolNameOf } from '../../src/registry/method';
import { LIST_CACHE_TTL_MS, OAUTH_CLIENT_CREDENTIALS_EXTENSION } from '../../src/transports/mcp-server';

const ACCEPT = 'application/json, text/event-stream';
const MODERN = '2026-07-28';

/** What a test needs of either SDK's client: tools/list and tools/call (their result types differ only in name). */
interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string; outputSchema?: unknown }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * One /mcp for every client generation: 2026-07-28 clients (no initialize, server/discover, a `_meta` envelope and
 * the Mcp-Method/Mcp-Name headers on every request) and 2025-11-25 / 2025-06-18 clients (initialize, then bare
 * requests), with the v2 SDK client (@modelcontextprotocol/client) and the 1.x one (@modelcontextprotocol/sdk).
 */
describe.each(backends())('MCP protocol versions at /mcp on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clients: AnyClient[] = [];

  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true, prices });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.close();
  });

  const mcpUrl = () => new URL(`${t.baseUrl}/mcp`);
  const bearer = (key: string) => ({ requestInit: { headers: { Authorization: `Bearer ${key}` } } });

  /** A fetch that rewrites the version a 1.x client offers in initialize: how a 2025-06-18 client opens. */
  const offering =
    (version: string): typeof fetch =>
    async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"initialize"')) {
        const message = JSON.parse(init.body) as { method: string; params: { protocolVersion: string } };
        if (message.method === 'initialize') init = { ...init, body: JSON.stringify({ ...message, params: { ...message.params, protocolVersion: version } }) };
      }
      return fetch(input, init);
    };

  type Opened = { client: AnyClient; version: string | undefined; capabilities: Record<string, unknown> | undefined };
  const CLIENTS: Array<[string, string, (key: string) => Promise<Opened>]> = [
    [
      'the v2 client negotiating (server/discover)',
      MODERN,
      async (key) => {
        const client = new Client({ name: 'v2-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl(), bearer(key)));
        expect(client.getProtocolEra()).toBe('modern');
        return { client, version: client.getNegotiatedProtocolVersion(), capabilities: client.getServerCapabilities() };
      },
    ],
    [
      'the v2 client pinned to 2026-07-28',
      MODERN,
      async (key) => {
        const client = new Client({ name: 'v2-pin', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl(), bearer(key)));
        return { client, version: client.getNegotiatedProtocolVersion(), capabilities: client.getServerCapabilities() };
      },
    ],
    ...(['2025-11-25', '2025-06-18'] as const).map((v): [string, string, (key: string) => Promise<Opened>] => [
      `the v2 client in its 2025 mode offering ${v}`,
      v,
      async (key) => {
        const client = new Client({ name: 'v2-legacy', version: '1.0.0' }, { supportedProtocolVersions: [v] });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl(), bearer(key)));
        expect(client.getProtocolEra()).toBe('legacy');
        return { client, version: client.getNegotiatedProtocolVersion(), capabilities: client.getServerCapabilities() };
      },
    ]),
    [
      'the 1.x client (@modelcontextprotocol/sdk 1.32), which offers 2025-11-25',
      '2025-11-25',
      async (key) => {
        const client = new V1Client({ name: 'v1', version: '1.0.0' });
        const transport = new V1Transport(mcpUrl(), bearer(key));
        await client.connect(transport);
        return { client, version: transport.protocolVersion, capabilities: client.getServerCapabilities() };
      },
    ],
    [
      'the 1.x client offering 2025-06-18',
      '2025-06-18',
      async (key) => {
        const client = new V1Client({ name: 'v1-0618', version: '1.0.0' });
        const transport = new V1Transport(mcpUrl(), { ...bearer(key), fetch: offering('2025-06-18') });
        await client.connect(transport);
        return { client, version: transport.protocolVersion, capabilities: client.getServerCapabilities() };
      },
    ],
  ];

  test.each(CLIENTS)(
    'when %s connects, then it gets protocol %s, lists the default tools, calls a public tool, get_balance, paper_trade, get_portfolio and get_market_odds',
    async (label, expected, open) => {
      const agent = await registerAgent(t, `Era${clients.length}`);
      const m = await seedMarket(t.services.db);
      prices.set(m.yes, 0.5, 0.5);
      const { client, version, capabilities } = await open(agent.apiKey);
      clients.push(client);
      expect(version).toBe(expected);
      // The OAuth client-credentials extension is advertised in every era's capabilities.
      expect(capabilities).toMatchObject({ tools: {}, extensions: { [OAUTH_CLIENT_CREDENTIALS_EXTENSION]: {} } });

      const { tools } = await client.listTools();
      // The default set (issue 51 item 1): /mcp/x/all lists the rest (test/transports/mcp-toolsets.test.ts).
      expect(tools.map((tool) => tool.name)).toEqual(t.services.registry.methods.filter((x) => onSurface(x, 'mcp') && x.defaultTool).map(toolNameOf));

      const categories = (await client.callTool({ name: 'list_market_categories', arguments: {} })) as CallToolResult;
      expect(categories.isError).toBeFalsy();
      expect(JSON.stringify(categories.structuredContent)).toContain('Testing');

      const balance = (await client.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
      expect(balance.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });

      const order = { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10, idempotencyKey: `era-${label}` };
      const trade = (await client.callTool({ name: 'paper_trade', arguments: order })) as CallToolResult;
      expect(trade.isError).toBeFalsy();
      expect(trade.structuredContent).toMatchObject({ success: true, price: 0.5, totalCost: 10, balance: 990 });
      // The idempotency key in the arguments works in every era: a retry returns the first result.
      const again = (await client.callTool({ name: 'paper_trade', arguments: order })) as CallToolResult;
      expect(again.structuredContent).toEqual(trade.structuredContent);
      const [{ n }] = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM trades WHERE user_id = $1', [agent.id]);
      expect(Number(n)).toBe(1);

      const portfolio = (await client.callTool({ name: 'get_portfolio', arguments: {} })) as CallToolResult;
      expect(portfolio.isError).toBeFalsy();
      expect(portfolio.structuredContent).toMatchObject({ positions: [{ tokenId: m.yes, createdAt: expect.any(String) }] });

      // No output schema carries a $ref (issue 51 item 6: MCP SDK 1.22.0 resolves none); the client validates the odds it got against it.
      const listed = tools.find((tool) => tool.name === 'get_market_odds') as { outputSchema?: Record<string, unknown> };
      expect(JSON.stringify(listed.outputSchema)).not.toContain('$ref');
      const odds = (await client.callTool({ name: 'get_market_odds', arguments: { marketId: m.id } })) as CallToolResult;
      expect(odds.isError).toBeFalsy();
      expect(odds.structuredContent).toMatchObject({ id: m.id });
    },
  );

  /** A 2026-07-28 request on the wire: the `_meta` envelope, and the standard headers the spec requires. */
  function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, version = MODERN) {
    const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
    const envelope = { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} };
    return fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': version, 'mcp-method': method, ...name, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope } }),
    });
  }
  type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

  test('when a 2026-07-28 client calls server/discover without credentials, then it gets the versions, capabilities with the OAuth extension, instructions, the server identity in _meta and a public cache hint', async () => {
    const res = await modern('server/discover');
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as Json;
    expect(result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false }, extensions: { [OAUTH_CLIENT_CREDENTIALS_EXTENSION]: {} } },
      instructions: expect.stringContaining('register_account'),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'paper-trading-service' } },
      ttlMs: LIST_CACHE_TTL_MS,
      cacheScope: 'public',
      resultType: 'complete',
    });
  });

  test('when tools are listed, then a 2026-07-28 answer carries ttlMs and cacheScope, and a 2025 answer the same tools without them', async () => {
    const now = ((await (await modern('tools/list')).json()) as Json).result;
    expect(now).toMatchObject({ ttlMs: LIST_CACHE_TTL_MS, cacheScope: 'public', resultType: 'complete' });
    const before = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const old = ((await before.json()) as Json).result;
    expect(old.tools).toEqual(now.tools);
    for (const field of ['ttlMs', 'cacheScope', 'resultType']) expect(old).not.toHaveProperty(field);
  });

  test('when a 2026-07-28 request names another method or tool in its Mcp-Method / Mcp-Name header than in its body, then HTTP 400 with HeaderMismatch -32020 and nothing runs', async () => {
    const agent = await registerAgent(t, 'Mismatch');
    const wrongName = await modern(
      'tools/call',
      { name: 'get_balance', arguments: {} },
      { authorization: `Bearer ${agent.apiKey}`, 'mcp-name': 'delete_account' },
    );
    expect(wrongName.status).toBe(400);
    expect(await wrongName.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32020 } });
    const wrongMethod = await modern('tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(wrongMethod.status).toBe(400);
    expect(await wrongMethod.json()).toMatchObject({ error: { code: -32020 } });
    const noName = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'list_market_categories',
          arguments: {},
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    expect(noName.status).toBe(400);
  });

  test('when a request claims a protocol version this server does not serve, then HTTP 400 with UnsupportedProtocolVersion -32022 listing the supported one', async () => {
    const res = await modern('tools/list', {}, {}, '2099-01-01');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } } });
  });

  test('when a 2026-07-28 client calls a keyed tool without credentials, then HTTP 401 with the Bearer challenge, as in 2025', async () => {
    const res = await modern('tools/call', { name: 'get_balance', arguments: {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(await res.json()).toMatchObject({ id: 1, error: { code: -32000, data: { code: 'UNAUTHORIZED', httpStatus: 401 } } });
  });

  test('when a 2026-07-28 client calls a tool with bad arguments, then the result is isError with VALIDATION_ERROR, the server identity in _meta', async () => {
    const res = await modern('tools/call', { name: 'register_account', arguments: { email: 'nope' } });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as Json;
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { code: 'VALIDATION_ERROR' },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'paper-trading-service' } },
    });
  });

  test('when a 2025 client sends initialize for 2025-06-18 by hand, then the answer is 2025-06-18 with the OAuth extension in its capabilities', async () => {
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(((await res.json()) as Json).result).toMatchObject({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false }, extensions: { [OAUTH_CLIENT_CREDENTIALS_EXTENSION]: {} } },
      serverInfo: { name: 'paper-trading-service' },
    });
  });

  test('when a client reads the authorization server metadata behind the extension, then it names the client_credentials grant and client_secret_basic', async () => {
    const meta = (await (await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(meta.grant_types_supported).toContain('client_credentials');
    expect(meta.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    expect(meta.token_endpoint).toBe(`${t.baseUrl}/oauth/token`);
  });
});
