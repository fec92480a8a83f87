import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { accessToken } from '../support/identity';
import { generateAccessToken } from '../../src/auth/access-tokens';

describe.each(backends())('OAuth discovery and bearer challenges on $name', (backend) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp(backend);
    base = t.config.BASE_URL!;
  });
  afterAll(async () => t.close());

  test('when the authorization server metadata is read, then it holds the RFC 8414 fields for client credentials', async () => {
    const res = await t.api.get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['agent'],
      response_types_supported: [],
    });
  });

  test('when the authorization endpoint the metadata lists is called, then it answers unsupported_response_type', async () => {
    const res = await t.api.get('/oauth/authorize?response_type=code&client_id=x');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_response_type');
  });

  test.each([
    ['/.well-known/oauth-protected-resource', ''],
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
  ])('when %s is read, then it names its resource, this server as authorization server, scope agent and the header method (RFC 9728)', async (path, suffix) => {
    const res = await t.api.get(path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resource: `${base}${suffix}`,
      authorization_servers: [base],
      scopes_supported: ['agent'],
      bearer_methods_supported: ['header'],
    });
  });

  test('when a keyed operation is called without credentials, then 401 with a bare Bearer challenge whose resource_metadata is served', async () => {
    const res = await t.api.get('/api/user/balance');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
    // RFC 6750 §3.1: no error code when the request carried no credential.
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
    const meta = await t.api.get(new URL(/resource_metadata="([^"]+)"/.exec(res.headers['www-authenticate']!)![1]!).pathname);
    expect(meta.body.resource).toBe(base);
  });

  test.each([
    ['an unknown API key', 'svc_00000000000000000000000000000000'],
    ['an unknown access token', () => generateAccessToken()],
    ['garbage', 'not-a-token'],
  ])('when the bearer is %s, then 401 with error="invalid_token"', async (_label, bearer) => {
    const value = typeof bearer === 'function' ? bearer() : bearer;
    const res = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${value}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="[^"\\]+"$/);
  });

  test('when a valid token lacks scope agent, then 403 with error="insufficient_scope" and scope="agent"', async () => {
    const agent = await registerAgent(t);
    const [{ api_key_hash }] = await t.services.db.query<{ api_key_hash: string }>('SELECT api_key_hash FROM users WHERE id = $1', [agent.id]);
    // No scope other than agent is issued today; a token with another scope must still not pass as agent.
    const issued = await t.services.identity.tokens.issue({
      token: generateAccessToken(),
      userId: agent.id,
      keyHash: api_key_hash!,
      audience: base,
      scopes: ['read'],
      now: t.services.clock.now(),
    });
    const res = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${issued.token}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(res.headers['www-authenticate']).toContain('scope="agent"');
    // The same account with scope agent passes.
    expect((await t.api.get('/api/user/balance').set('Authorization', `Bearer ${await accessToken(t, agent)}`)).status).toBe(200);
  });
});
