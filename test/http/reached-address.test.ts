import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { checkedAgent, type CheckedAgent } from '../support/openapi-check';
import { basicAuth, sessionCookieOf } from '../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { fetchReaching } from '../support/reaching';

type Oauth = typeof import('oauth4webapi');

/**
 * Issue 18 item 6: with BASE_URL unset the service names the address each request reached (Host; the forwarded
 * headers only with TRUST_PROXY) in documents, links, token audiences and the same-origin rule, and acts on
 * credentials only at its own addresses; with BASE_URL set, BASE_URL alone. The app listens on a real port;
 * supertest connects to 127.0.0.1 and each test names the address it reached in the Host header.
 */
describe.each(backends())('one address, however it is reached, on $name', (backend) => {
  let oauth: Oauth;
  beforeAll(async () => {
    oauth = await import('oauth4webapi');
  });

  /** A running app on a port, reached through supertest with an explicit Host. */
  async function start(config: Record<string, string | number>, prices?: ControlledPrices) {
    const t = await startTestApp(backend, { listen: true, config, prices });
    const port = Number(new URL(t.baseUrl).port);
    const api: CheckedAgent = checkedAgent(t.baseUrl);
    return { t, port, api };
  }

  /** What a person's browser sends: sign in at `site` (Host and Origin), keep the cookie. */
  async function personAt(api: CheckedAgent, host: string, site: string): Promise<string> {
    const email = `reached-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const reg = await api.post('/api/auth/register').set('Host', host).set('Origin', site).send({ email, password: 'password123', displayName: 'Reacher' });
    expect(reg.status).toBe(201);
    const cookie = sessionCookieOf(reg);
    if (!cookie) throw new Error('registration did not sign in');
    return cookie;
  }

  const tradeBody = (m: SeededMarket) => ({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 });

  describe('when BASE_URL is unset and no proxy is trusted', () => {
    let t: TestApp;
    let port: number;
    let api: CheckedAgent;
    let m: SeededMarket;
    const prices = new ControlledPrices();

    beforeAll(async () => {
      ({ t, port, api } = await start({ BASE_URL: '' }, prices));
      m = await seedMarket(t.services.db);
      prices.set(m.yes, 0.5, 0.5);
    });
    afterAll(async () => t.close());

    test.each(['localhost', '127.0.0.1'])('when reached as %s, then discovery, OpenAPI, the agent card and llms.txt name that address', async (name) => {
      const host = `${name}:${port}`;
      const site = `http://${host}`;
      const resource = await api.get('/.well-known/oauth-protected-resource/mcp').set('Host', host);
      expect(resource.body).toMatchObject({ resource: `${site}/mcp`, authorization_servers: [site] });
      expect((await api.get('/.well-known/oauth-protected-resource').set('Host', host)).body.resource).toBe(site);
      const as = await api.get('/.well-known/oauth-authorization-server').set('Host', host);
      expect(as.body).toMatchObject({ issuer: site, token_endpoint: `${site}/oauth/token` });

      const openapi = await api.get('/openapi.json').set('Host', host);
      expect(openapi.body.servers).toEqual([{ url: site }]);
      expect(openapi.body.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(`${site}/oauth/token`);
      const card = await api.get('/.well-known/agent-card.json').set('Host', host);
      expect(card.body.supportedInterfaces[0].url).toBe(`${site}/api/a2a`);
      expect((await api.get('/api/a2a').set('Host', host)).body.url).toBe(`${site}/api/a2a`);
      const llms = await api.get('/llms.txt').set('Host', host);
      expect(llms.text).toContain(`(${site}/openapi.json)`);

      const other = name === 'localhost' ? '127.0.0.1' : 'localhost';
      for (const text of [JSON.stringify(resource.body), JSON.stringify(as.body), openapi.text, JSON.stringify(card.body), llms.text]) {
        expect(text).not.toContain(`//${other}:`);
      }
    });

    test('when a page is read at 127.0.0.1, then its links go to 127.0.0.1, not localhost', async () => {
      const host = `127.0.0.1:${port}`;
      const home = await api.get('/').set('Host', host).set('Accept', 'text/html');
      expect(home.text).toContain(`href="http://${host}/openapi.json"`);
      const page = await api.get(`/markets/${m.slug}`).set('Host', host).set('Accept', 'text/html');
      expect(page.status).toBe(200);
      expect(page.text).toContain(`href="http://${host}/api/markets/${m.slug}"`);
      for (const text of [home.text, page.text]) expect(text).not.toContain('//localhost:');
      // An error's docs link, too.
      const missing = await api.get('/api/no-such-thing').set('Host', host);
      expect(missing.body.docs).toBe(`http://${host}/llms.txt`);
    });

    test('when forwarded headers arrive without TRUST_PROXY, then they are ignored', async () => {
      const host = `127.0.0.1:${port}`;
      const res = await api
        .get('/.well-known/oauth-protected-resource/mcp')
        .set('Host', host)
        .set('X-Forwarded-Host', 'paper.example')
        .set('X-Forwarded-Proto', 'https')
        .set('Forwarded', 'host=paper.example;proto=https');
      expect(res.body.resource).toBe(`http://${host}/mcp`);
      expect(res.headers['strict-transport-security']).toBeUndefined();
    });

    test.each(['127.0.0.1', 'localhost'])(
      'when a standard OAuth client (oauth4webapi) works at %s, then discovery matches and its token is honoured there',
      async (name) => {
        const agent = await registerAgent(t, 'Oauth');
        const site = `http://${name}:${port}`;
        const opts = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: fetchReaching(t.baseUrl, 'host') };
        const rs = await oauth.processResourceDiscoveryResponse(new URL(`${site}/mcp`), await oauth.resourceDiscoveryRequest(new URL(`${site}/mcp`), opts));
        expect(rs.authorization_servers).toEqual([site]);
        const issuer = new URL(rs.authorization_servers![0]!);
        const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...opts }));
        const client = { client_id: agent.id };
        const response = await oauth.clientCredentialsGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(agent.apiKey),
          new URLSearchParams({ scope: 'agent', resource: site }),
          opts,
        );
        const { access_token } = await oauth.processClientCredentialsResponse(as, client, response);
        const balance = await api.get('/api/user/balance').set('Host', `${name}:${port}`).set('Authorization', `Bearer ${access_token}`);
        expect(balance.status).toBe(200);
        expect(balance.body).toEqual({ balance: 1000, reserved: 0, available: 1000 });
      },
    );

    test("when the MCP SDK's client-credentials provider connects to http://127.0.0.1:PORT/mcp, then the protected resource matches and keyed tools work", async () => {
      const agent = await registerAgent(t, 'McpAt127');
      const url = new URL(`http://127.0.0.1:${port}/mcp`);
      const provider = new ClientCredentialsProvider({ clientId: agent.id, clientSecret: agent.apiKey, expectedIssuer: `http://127.0.0.1:${port}` });
      expect(await auth(provider, { serverUrl: url })).toBe('AUTHORIZED');
      const mcp = new Client({ name: 'reached-address', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      try {
        const result = (await mcp.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect((result.structuredContent as { balance: number }).balance).toBe(1000);
      } finally {
        await mcp.close();
      }
    });

    test.each(['127.0.0.1', 'localhost'])(
      'when a signed-in person trades by cookie at %s from its own origin, then the trade is made; from http://evil.example it is refused',
      async (name) => {
        const host = `${name}:${port}`;
        const site = `http://${host}`;
        const cookie = await personAt(api, host, site);
        const refused = await api.post('/api/trade').set('Host', host).set('Cookie', cookie).set('Origin', 'http://evil.example').send(tradeBody(m));
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
        // Another loopback name is another origin to a browser: still cross-site.
        const otherName = `http://${name === 'localhost' ? '127.0.0.1' : 'localhost'}:${port}`;
        expect((await api.post('/api/trade').set('Host', host).set('Cookie', cookie).set('Origin', otherName).send(tradeBody(m))).status).toBe(403);
        const balance = await api.get('/api/user/balance').set('Host', host).set('Cookie', cookie);
        expect(balance.body.balance).toBe(1000);

        const traded = await api.post('/api/trade').set('Host', host).set('Cookie', cookie).set('Origin', site).send(tradeBody(m));
        expect(traded.status).toBe(200);
        expect(traded.body).toMatchObject({ success: true, balance: 990 });
      },
    );

    test('when a request names a host the service does not answer to, then pages name it, but no token is issued or honoured and no cookie write is accepted', async () => {
      const foreign = `evil.example:${port}`;
      const doc = await api.get('/.well-known/oauth-protected-resource').set('Host', foreign);
      expect(doc.body.resource).toBe(`http://${foreign}`);

      const agent = await registerAgent(t, 'Foreign');
      const minted = await api
        .post('/oauth/token')
        .set('Host', foreign)
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'agent' });
      expect(minted.status).toBe(400);
      expect(minted.body.error).toBe('invalid_target');

      const cookie = await personAt(api, `127.0.0.1:${port}`, `http://127.0.0.1:${port}`);
      const write = await api.post('/api/trade').set('Host', foreign).set('Cookie', cookie).set('Origin', `http://${foreign}`).send(tradeBody(m));
      expect(write.status).toBe(403);
      // MCP's DNS-rebinding guard refuses the name outright.
      const mcp = await api
        .post('/mcp')
        .set('Host', foreign)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(mcp.status).toBe(403);
    });

    test('when a token minted at 127.0.0.1 is presented, then it is honoured at the loopback names of this port only', async () => {
      const agent = await registerAgent(t, 'Minted');
      const minted = await api
        .post('/oauth/token')
        .set('Host', `127.0.0.1:${port}`)
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'agent' });
      expect(minted.status).toBe(200);
      const balanceAt = (host: string) => api.get('/api/user/balance').set('Host', host).set('Authorization', `Bearer ${minted.body.access_token}`);
      expect((await balanceAt(`127.0.0.1:${port}`)).status).toBe(200);
      // localhost, 127.0.0.1 and [::1] on the port this connection arrived on all reach this one listener.
      expect((await balanceAt(`localhost:${port}`)).status).toBe(200);
      expect((await balanceAt(`[::1]:${port}`)).status).toBe(200);
      for (const host of [`evil.example:${port}`, `127.0.0.1:${port === 1 ? 2 : port - 1}`, 'localhost', `paper.example`]) {
        const refused = await balanceAt(host);
        expect(refused.status).toBe(401);
        expect(refused.body.code).toBe('UNAUTHORIZED');
      }
      // With forwarded headers (ignored here) a foreign name gains nothing either.
      const forwarded = await api
        .get('/api/user/balance')
        .set('Host', `evil.example:${port}`)
        .set('X-Forwarded-Host', `127.0.0.1:${port}`)
        .set('Authorization', `Bearer ${minted.body.access_token}`);
      expect(forwarded.status).toBe(401);
    });
  });

  describe('when BASE_URL is unset and TRUST_PROXY=1', () => {
    let t: TestApp;
    let port: number;
    let api: CheckedAgent;
    let m: SeededMarket;
    const prices = new ControlledPrices();
    const PUBLIC = 'https://paper.example';
    const viaProxy = (req: ReturnType<CheckedAgent['get']>, host = 'paper.example', proto = 'https') =>
      req.set('Host', `127.0.0.1:${port}`).set('X-Forwarded-Host', host).set('X-Forwarded-Proto', proto);

    beforeAll(async () => {
      ({ t, port, api } = await start({ BASE_URL: '', TRUST_PROXY: 1 }, prices));
      m = await seedMarket(t.services.db);
      prices.set(m.yes, 0.5, 0.5);
    });
    afterAll(async () => t.close());

    test('when the proxy reports X-Forwarded-Host and -Proto, then documents and discovery name the public address and HSTS is on', async () => {
      const res = await viaProxy(api.get('/.well-known/oauth-protected-resource/mcp'));
      expect(res.body).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [PUBLIC] });
      expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
      expect((await viaProxy(api.get('/openapi.json'))).body.servers).toEqual([{ url: PUBLIC }]);
      expect((await viaProxy(api.get('/llms.txt'))).text).toContain(`(${PUBLIC}/openapi.json)`);
      expect((await viaProxy(api.get('/.well-known/agent-card.json'))).body.url).toBe(`${PUBLIC}/api/a2a`);
    });

    test('when the proxy sends RFC 7239 Forwarded instead, then it is read the same way', async () => {
      const res = await api
        .get('/.well-known/oauth-authorization-server')
        .set('Host', `127.0.0.1:${port}`)
        .set('Forwarded', 'for=192.0.2.60;proto=https;host="paper.example"');
      expect(res.body.issuer).toBe(PUBLIC);
    });

    test('when a standard OAuth client works through the proxy, then its token is honoured there and nowhere else', async () => {
      const agent = await registerAgent(t, 'Proxied');
      const opts = { [oauth.customFetch]: fetchReaching(t.baseUrl, 'proxy') };
      const rs = await oauth.processResourceDiscoveryResponse(new URL(PUBLIC), await oauth.resourceDiscoveryRequest(new URL(PUBLIC), opts));
      const issuer = new URL(rs.authorization_servers![0]!);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...opts }));
      const client = { client_id: agent.id };
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(agent.apiKey),
        new URLSearchParams({ scope: 'agent' }),
        opts,
      );
      const { access_token } = await oauth.processClientCredentialsResponse(as, client, response);
      const bearer = `Bearer ${access_token}`;

      expect((await viaProxy(api.get('/api/user/balance')).set('Authorization', bearer)).status).toBe(200);
      expect((await viaProxy(api.get('/api/user/balance'), 'other.example').set('Authorization', bearer)).status).toBe(401);
      expect((await viaProxy(api.get('/api/user/balance'), 'paper.example', 'http').set('Authorization', bearer)).status).toBe(401);
      expect((await api.get('/api/user/balance').set('Host', `127.0.0.1:${port}`).set('Authorization', bearer)).status).toBe(401);
    });

    test('when a person signs in through the proxy, then the cookie is Secure and cookie trades from the public origin pass, others are refused', async () => {
      const email = `proxied-${Date.now()}@example.com`;
      const reg = await viaProxy(api.post('/api/auth/register')).set('Origin', PUBLIC).send({ email, password: 'password123', displayName: 'Proxied' });
      expect(reg.status).toBe(201);
      expect(([] as string[]).concat(reg.headers['set-cookie'] ?? []).join()).toMatch(/svc\.session-token=[^;]+;.*Secure/i);
      const cookie = sessionCookieOf(reg)!;
      const refused = await viaProxy(api.post('/api/trade')).set('Cookie', cookie).set('Origin', 'https://other.example').send(tradeBody(m));
      expect(refused.status).toBe(403);
      const traded = await viaProxy(api.post('/api/trade')).set('Cookie', cookie).set('Origin', PUBLIC).send(tradeBody(m));
      expect(traded.status).toBe(200);
    });
  });

  describe('when BASE_URL is set', () => {
    let t: TestApp;
    let port: number;
    let api: CheckedAgent;
    let m: SeededMarket;
    const prices = new ControlledPrices();
    const BASE = 'https://trade.example';

    beforeAll(async () => {
      // TRUST_PROXY too: even a trusted proxy's report does not move the address BASE_URL names.
      ({ t, port, api } = await start({ BASE_URL: BASE, TRUST_PROXY: 1 }, prices));
      m = await seedMarket(t.services.db);
      prices.set(m.yes, 0.5, 0.5);
    });
    afterAll(async () => t.close());

    test('when reached as localhost, 127.0.0.1 or through a proxy naming another host, then everything names BASE_URL', async () => {
      const ways = [
        (path: string) => api.get(path).set('Host', `localhost:${port}`),
        (path: string) => api.get(path).set('Host', `127.0.0.1:${port}`),
        (path: string) => api.get(path).set('Host', `127.0.0.1:${port}`).set('X-Forwarded-Host', 'other.example').set('X-Forwarded-Proto', 'http'),
      ];
      for (const get of ways) {
        expect((await get('/.well-known/oauth-protected-resource/mcp')).body.resource).toBe(`${BASE}/mcp`);
        expect((await get('/.well-known/oauth-authorization-server')).body.issuer).toBe(BASE);
        expect((await get('/openapi.json')).body.servers).toEqual([{ url: BASE }]);
        expect((await get('/.well-known/agent-card.json')).body.url).toBe(`${BASE}/api/a2a`);
        const llms = (await get('/llms.txt')).text;
        expect(llms).toContain(`(${BASE}/openapi.json)`);
        expect(llms).not.toMatch(/\/\/(localhost|127\.0\.0\.1|other\.example)/);
      }
    });

    test('when a cookie write comes from the address reached rather than BASE_URL, then it is refused; from BASE_URL it trades', async () => {
      const cookie = await personAt(api, `127.0.0.1:${port}`, BASE);
      const local = await api
        .post('/api/trade')
        .set('Host', `127.0.0.1:${port}`)
        .set('Cookie', cookie)
        .set('Origin', `http://127.0.0.1:${port}`)
        .send(tradeBody(m));
      expect(local.status).toBe(403);
      const traded = await api.post('/api/trade').set('Host', `127.0.0.1:${port}`).set('Cookie', cookie).set('Origin', BASE).send(tradeBody(m));
      expect(traded.status).toBe(200);
    });

    test('when a resource names the address reached instead of BASE_URL, then no token is issued for it', async () => {
      const agent = await registerAgent(t, 'BaseSet');
      const res = await api
        .post('/oauth/token')
        .set('Host', `127.0.0.1:${port}`)
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'agent', resource: `http://127.0.0.1:${port}` });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_target');
    });
  });
});
