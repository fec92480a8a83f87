import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as v2 from '@modelcontextprotocol/client';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { accessToken, ManualClock, MINUTE } from '../support/identity';
import { ControlledPrices, seedMarket } from '../support/markets';

const ACCEPT = 'application/json, text/event-stream';

/**
 * The MCP authorization story end to end: an MCP client finds the authorization server through the /mcp
 * protected-resource metadata (RFC 9728), gets a client-credentials token for the /mcp resource (RFC 8707),
 * and calls keyed tools with it; an expired token makes /mcp answer 401 with a challenge, after which the
 * SDK fetches a new token by itself. Tokens are accepted on JSON-RPC too.
 */
describe.each(backends())('OAuth access tokens on MCP and JSON-RPC on $name', (backend) => {
  let t: TestApp;
  let agent: { id: string; apiKey: string };
  const clock = new ManualClock();
  const prices = new ControlledPrices();
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true, clock, prices });
    agent = await registerAgent(t, 'McpOauth');
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.close();
  });

  const mcpUrl = () => new URL(`${t.baseUrl}/mcp`);
  const balanceOf = (r: CallToolResult) => (r.structuredContent as { balance?: number }).balance;

  /** A fetch that records what the client asked for (path, and whether it sent a bearer) before passing it on. */
  function recordingFetch(seen: string[]): typeof fetch {
    return async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const authorization = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('authorization');
      const res = await fetch(input, init);
      seen.push(`${init?.method ?? 'GET'} ${url.pathname}${authorization?.startsWith('Bearer ') ? ' (bearer)' : ''} -> ${res.status}`);
      return res;
    };
  }

  /** A fresh agent and a market it can buy, and the order a paper_trade call places. */
  async function tradeSetup(name: string) {
    const trader = await registerAgent(t, name);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    return { trader, order: { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 } };
  }
  const tradesOf = async (userId: string) =>
    Number((await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM trades WHERE user_id = $1', [userId]))[0]!.n);

  /** The standard flow a client configured only for OAuth runs after its first keyed call, as the recording shows it. */
  function expectOauthFlow(seen: string[]) {
    const firstCall = seen.findIndex((s) => s === 'POST /mcp -> 401');
    expect(firstCall).toBeGreaterThan(-1);
    const after = seen.slice(firstCall + 1);
    expect(after).toContain('GET /.well-known/oauth-protected-resource/mcp -> 200');
    expect(after).toContain('GET /.well-known/oauth-authorization-server -> 200');
    expect(after).toContain('POST /oauth/token -> 200');
    expect(after[after.length - 1]).toBe('POST /mcp (bearer) -> 200');
  }

  test('when an SDK 1.x client is configured only with a client-credentials provider, then connect works without a token and its first paper_trade runs discovery, gets a token and succeeds', async () => {
    const { trader, order } = await tradeSetup('Oauth1x');
    const provider = new ClientCredentialsProvider({ clientId: trader.id, clientSecret: trader.apiKey, scope: 'agent', expectedIssuer: t.baseUrl });
    expect(provider.tokens()).toBeUndefined();
    const seen: string[] = [];
    const mcp = new Client({ name: 'oauth-only-1x', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider, fetch: recordingFetch(seen) }));
    clients.push(mcp);
    expect(provider.tokens()).toBeUndefined(); // initialize is open: no token yet

    const result = (await mcp.callTool({ name: 'paper_trade', arguments: order })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ success: true, price: 0.5, totalCost: 10, balance: 990 });
    expect(provider.tokens()!.access_token).toMatch(/^sat_[0-9a-f]{64}$/);
    expectOauthFlow(seen);
    expect(await tradesOf(trader.id)).toBe(1);
  });

  test('when a v2 client (@modelcontextprotocol/client) on 2026-07-28 is configured only with its client-credentials provider, then server/discover works without a token and its first paper_trade runs discovery, gets a token and succeeds', async () => {
    const { trader, order } = await tradeSetup('Oauth2x');
    const provider = new v2.ClientCredentialsProvider({ clientId: trader.id, clientSecret: trader.apiKey, scope: 'agent', expectedIssuer: t.baseUrl });
    expect(provider.tokens()).toBeUndefined();
    const seen: string[] = [];
    const mcp = new v2.Client({ name: 'oauth-only-2x', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await mcp.connect(new v2.StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider, fetch: recordingFetch(seen) }));
    clients.push(mcp);
    expect(mcp.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    // The server says it takes client-credentials tokens (the OAuth Client Credentials extension).
    expect(mcp.getServerCapabilities()?.extensions).toHaveProperty(['io.modelcontextprotocol/oauth-client-credentials']);
    expect(seen).toEqual(['POST /mcp -> 200']); // the server/discover probe is public: no token yet

    const result = await mcp.callTool({ name: 'paper_trade', arguments: order });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ success: true, price: 0.5, totalCost: 10, balance: 990 });
    expect((await provider.tokens())!.access_token).toMatch(/^sat_[0-9a-f]{64}$/);
    expectOauthFlow(seen);
    expect(await tradesOf(trader.id)).toBe(1);
  });

  test('when an MCP client uses a token from /oauth/token obtained with oauth4webapi, then keyed tools work', async () => {
    const oauth = await import('oauth4webapi');
    const issuer = new URL(t.baseUrl);
    const opts = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...opts }));
    const client = { client_id: agent.id };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(agent.apiKey),
      new URLSearchParams({ scope: 'agent', resource: `${t.baseUrl}/mcp` }),
      opts,
    );
    const { access_token } = await oauth.processClientCredentialsResponse(as, client, response);

    const mcp = new Client({ name: 'oauth-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { Authorization: `Bearer ${access_token}` } } }));
    clients.push(mcp);
    const result = (await mcp.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(balanceOf(result)).toBe(1000);
  });

  test('when the SDK client-credentials provider runs discovery from /mcp, then it gets a token for the /mcp resource and calls keyed tools', async () => {
    const provider = new ClientCredentialsProvider({ clientId: agent.id, clientSecret: agent.apiKey, expectedIssuer: t.baseUrl });
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe('AUTHORIZED');
    const tokens = provider.tokens()!;
    expect(tokens.access_token).toMatch(/^sat_[0-9a-f]{64}$/);
    expect(tokens.scope).toBe('agent');

    const mcp = new Client({ name: 'oauth-provider-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    clients.push(mcp);
    expect(balanceOf((await mcp.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult)).toBe(1000);

    // The SDK asked for resource=<BASE_URL>/mcp, so the token is audience-restricted to MCP: REST refuses it.
    const rest = await fetch(`${t.baseUrl}/api/user/balance`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(rest.status).toBe(401);
  });

  test('when the MCP token has expired, then /mcp answers 401 with its resource metadata and the SDK fetches a new token by itself', async () => {
    const provider = new ClientCredentialsProvider({ clientId: agent.id, clientSecret: agent.apiKey, expectedIssuer: t.baseUrl });
    const stale = await accessToken(t, agent, { resource: `${t.baseUrl}/mcp` });
    clock.advance(61 * MINUTE);

    const raw = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { Authorization: `Bearer ${stale}`, Accept: ACCEPT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balance', arguments: {} } }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="The API key or access token is invalid, expired, or meant for another resource."`,
    );

    provider.saveTokens({ access_token: stale, token_type: 'Bearer' });
    const mcp = new Client({ name: 'oauth-refresh-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    clients.push(mcp);
    expect(balanceOf((await mcp.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult)).toBe(1000);
    expect(provider.tokens()!.access_token).not.toBe(stale);
  });

  test('when a token for the whole API is used on JSON-RPC, then keyed methods work; an /mcp-only token is refused with the root challenge', async () => {
    const rpc = (token: string) =>
      fetch(`${t.baseUrl}/api/a2a`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'get_balance', params: {} }),
      });
    const ok = await rpc(await accessToken(t, agent));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: unknown }).result).toEqual({ balance: 1000, reserved: 0, available: 1000 });

    const refused = await rpc(await accessToken(t, agent, { resource: `${t.baseUrl}/mcp` }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(
      new RegExp(`^Bearer resource_metadata="${t.baseUrl}/\\.well-known/oauth-protected-resource", error="invalid_token"`),
    );
    expect(((await refused.json()) as { error: { data: { code: string } } }).error.data.code).toBe('UNAUTHORIZED');
  });

  test('when a token for the whole API is used on MCP, then it is accepted there too (MCP is part of the API)', async () => {
    const mcp = new Client({ name: 'api-token-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { Authorization: `Bearer ${await accessToken(t, agent)}` } } }));
    clients.push(mcp);
    expect(balanceOf((await mcp.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult)).toBe(1000);
  });
});
