import { backends } from '../support/backends';
import { registerAgent, request, startTestApp, type TestApp } from '../support/app';
import { accessToken, basicAuth, HOUR, ManualClock, MINUTE, signedInPerson } from '../support/identity';
import { startService } from '../../src/start';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';

type Oauth = typeof import('oauth4webapi');

describe.each(backends())('OAuth 2.0 client credentials at POST /oauth/token on $name', (backend) => {
  let t: TestApp;
  let agent: { id: string; apiKey: string };
  let oauth: Oauth;
  const clock = new ManualClock();

  beforeAll(async () => {
    oauth = await import('oauth4webapi');
    t = await startTestApp(backend, { listen: true, clock });
    agent = await registerAgent(t, 'OauthAgent');
  });
  afterAll(async () => t.close());

  const token = () => t.api.post('/oauth/token').type('form');
  const balanceWith = (bearer: string) => t.api.get('/api/user/balance').set('Authorization', `Bearer ${bearer}`);
  const insecure = () => ({ [oauth.allowInsecureRequests]: true });

  describe('with a real OAuth client (oauth4webapi)', () => {
    test('when a client discovers the server and runs client_credentials with HTTP Basic, then its token reads the balance', async () => {
      const issuer = new URL(t.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure() }));
      expect(as.token_endpoint).toBe(`${t.baseUrl}/oauth/token`);
      const client = { client_id: agent.id };
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(agent.apiKey),
        new URLSearchParams({ scope: 'agent' }),
        insecure(),
      );
      const result = await oauth.processClientCredentialsResponse(as, client, response);
      expect(result.token_type).toBe('bearer'); // oauth4webapi lower-cases it
      expect(result.expires_in).toBe(3600);
      expect(result.scope).toBe('agent');
      const bal = await fetch(`${t.baseUrl}/api/user/balance`, { headers: { Authorization: `Bearer ${result.access_token}` } });
      expect(bal.status).toBe(200);
      expect(await bal.json()).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    });

    test('when the client authenticates with client_secret_post instead, then it gets a token too', async () => {
      const issuer = new URL(t.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure() }));
      const client = { client_id: agent.id };
      const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(agent.apiKey), new URLSearchParams(), insecure());
      const result = await oauth.processClientCredentialsResponse(as, client, response);
      expect(result.access_token).toMatch(/^sat_[0-9a-f]{64}$/);
      expect(result.scope).toBe('agent'); // the default when scope is omitted
    });

    test('when the secret is wrong, then the client library surfaces invalid_client from a 401', async () => {
      const issuer = new URL(t.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure() }));
      const client = { client_id: agent.id };
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic('svc_ffffffffffffffffffffffffffffffff'),
        new URLSearchParams({ scope: 'agent' }),
        insecure(),
      );
      expect(response.status).toBe(401);
      // A 401 with a challenge surfaces as the challenge (RFC 6749 §5.2: WWW-Authenticate when Basic was used).
      const err = await oauth.processClientCredentialsResponse(as, client, response).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      expect((err as InstanceType<Oauth['WWWAuthenticateChallengeError']>).cause[0]!.scheme).toBe('basic');
      expect(await (err as InstanceType<Oauth['WWWAuthenticateChallengeError']>).response.json()).toMatchObject({ error: 'invalid_client' });
    });
  });

  test('when the token is issued, then the answer is exactly the RFC 6749 §5.1 fields, not cacheable, and only its hash is stored', async () => {
    const res = await token().set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ grant_type: 'client_credentials', scope: 'agent' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^sat_[0-9a-f]{64}$/), token_type: 'Bearer', expires_in: 3600, scope: 'agent' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['pragma']).toBe('no-cache');
    const rows = await t.services.db.query<Record<string, unknown>>('SELECT * FROM access_tokens WHERE user_id = $1', [agent.id]);
    expect(rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(res.body.access_token);
    expect(dump).not.toContain(res.body.access_token.slice(4));
    expect(dump).not.toContain(agent.apiKey);
  });

  test('when id and secret are form-urlencoded inside Basic (RFC 6749 §2.3.1), then they are decoded before checking', async () => {
    const everyChar = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const header = `Basic ${Buffer.from(`${everyChar(agent.id)}:${everyChar(agent.apiKey)}`).toString('base64')}`;
    const res = await token().set('Authorization', header).send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(200);
  });

  describe('RFC 6749 §5.2 errors', () => {
    const expectOauthError = (res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, status: number, error: string) => {
      expect(res.status).toBe(status);
      expect(res.body.error).toBe(error);
      expect(typeof res.body.error_description).toBe('string');
      expect(res.headers['cache-control']).toBe('no-store');
    };

    test('when Basic and body credentials are both sent, then 400 invalid_request (Basic does not silently win)', async () => {
      const res = await token()
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .send({ grant_type: 'client_credentials', client_id: agent.id, client_secret: agent.apiKey });
      expectOauthError(res, 400, 'invalid_request');
    });

    test('when Basic names one client and the body another client_id, then 400 invalid_request', async () => {
      const other = await registerAgent(t, 'Other');
      const res = await token().set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ grant_type: 'client_credentials', client_id: other.id });
      expectOauthError(res, 400, 'invalid_request');
    });

    test('when the secret is wrong over Basic, then 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const res = await token().set('Authorization', basicAuth(agent.id, 'svc_ffffffffffffffffffffffffffffffff')).send({ grant_type: 'client_credentials' });
      expectOauthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    });

    test('when the secret is wrong in the body, then 400 invalid_client without a Basic challenge', async () => {
      const res = await token().send({ grant_type: 'client_credentials', client_id: agent.id, client_secret: 'svc_ffffffffffffffffffffffffffffffff' });
      expectOauthError(res, 400, 'invalid_client');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    test.each([
      ['an unknown client id', () => basicAuth('00000000-0000-4000-8000-000000000000', agent.apiKey)],
      ['a client id that is not a user id', () => basicAuth('not-a-uuid', agent.apiKey)],
      ['a secret that is not an API key', () => basicAuth(agent.id, 'password123')],
      ['a malformed Basic header', () => 'Basic !!!'],
      ['a Bearer header instead of Basic', () => `Bearer ${agent.apiKey}`],
    ])('when authenticating with %s, then 401 invalid_client', async (_label, header) => {
      const res = await token().set('Authorization', header()).send({ grant_type: 'client_credentials' });
      expectOauthError(res, 401, 'invalid_client');
    });

    test('when a person (no API key) offers their user id with an agent key, then invalid_client: only agents have client credentials', async () => {
      const person = await signedInPerson(t);
      const res = await token().set('Authorization', basicAuth(person.id, agent.apiKey)).send({ grant_type: 'client_credentials' });
      expectOauthError(res, 401, 'invalid_client');
    });

    test('when no client credentials are sent at all, then 400 invalid_client', async () => {
      expectOauthError(await token().send({ grant_type: 'client_credentials' }), 400, 'invalid_client');
    });

    test('when grant_type is missing, then 400 invalid_request', async () => {
      expectOauthError(await token().set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ scope: 'agent' }), 400, 'invalid_request');
    });

    test.each(['password', 'authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'])(
      'when grant_type is %s, then 400 unsupported_grant_type',
      async (grant) => {
        expectOauthError(await token().set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ grant_type: grant }), 400, 'unsupported_grant_type');
      },
    );

    test.each(['admin', 'agent admin', 'agent "x"'])('when scope is %j, then 400 invalid_scope', async (scope) => {
      expectOauthError(
        await token().set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ grant_type: 'client_credentials', scope }),
        400,
        'invalid_scope',
      );
    });

    test('when a parameter repeats, then 400 invalid_request', async () => {
      const res = await token().set('Authorization', basicAuth(agent.id, agent.apiKey)).send('grant_type=client_credentials&grant_type=client_credentials');
      expectOauthError(res, 400, 'invalid_request');
    });

    test('when the body is JSON instead of a form, then 400 invalid_request', async () => {
      const res = await t.api.post('/oauth/token').set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ grant_type: 'client_credentials' });
      expectOauthError(res, 400, 'invalid_request');
    });

    test('when the form is larger than 10 kB, then 400 invalid_request', async () => {
      const res = await token()
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .send(`grant_type=client_credentials&scope=${'a'.repeat(11_000)}`);
      expectOauthError(res, 400, 'invalid_request');
    });

    test.each([
      ['another server', 'https://evil.example/'],
      ['a path that is not ours', 'BASE/api'],
      ['a fragment', 'BASE/mcp#x'],
      ['not a URI', 'mcp'],
    ])('when resource names %s, then 400 invalid_target (RFC 8707)', async (_label, resource) => {
      const res = await token()
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .send({ grant_type: 'client_credentials', resource: resource.replace('BASE', t.baseUrl) });
      expectOauthError(res, 400, 'invalid_target');
    });

    test('when two different resources are asked for in one request, then 400 invalid_target (one audience per token)', async () => {
      const res = await token()
        .set('Authorization', basicAuth(agent.id, agent.apiKey))
        .send(`grant_type=client_credentials&resource=${encodeURIComponent(t.baseUrl)}&resource=${encodeURIComponent(`${t.baseUrl}/mcp`)}`);
      expectOauthError(res, 400, 'invalid_target');
    });

    test('when the token endpoint is read with GET, then 405 with Allow: POST', async () => {
      const res = await t.api.get('/oauth/token');
      expect(res.status).toBe(405);
      expect(res.headers['allow']).toBe('POST');
      expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
    });
  });

  describe('audience (RFC 8707 resource)', () => {
    test('when resource is BASE_URL with a trailing slash, then the token works on the REST API', async () => {
      const tok = await accessToken(t, agent, { resource: `${t.baseUrl}/` });
      expect((await balanceWith(tok)).status).toBe(200);
    });

    test('when the token was issued for /mcp only, then the REST API refuses it with invalid_token', async () => {
      const tok = await accessToken(t, agent, { resource: `${t.baseUrl}/mcp` });
      const res = await balanceWith(tok);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    test('when a token was issued by a deployment with another BASE_URL on the same database, then this one refuses it', async () => {
      const other = await startService(
        testConfig({ DATA_DIR: 'memory', BASE_URL: 'https://other.example', RATE_LIMIT_API_PER_MIN: 100000 }),
        createLogger('silent'),
        {
          db: t.services.db,
          clock,
        },
      );
      try {
        const res = await request(other.app)
          .post('/oauth/token')
          .type('form')
          .set('Authorization', basicAuth(agent.id, agent.apiKey))
          .send({ grant_type: 'client_credentials' });
        expect(res.status).toBe(200);
        expect((await request(other.app).get('/api/user/balance').set('Authorization', `Bearer ${res.body.access_token}`)).status).toBe(200);
        const here = await balanceWith(res.body.access_token);
        expect(here.status).toBe(401);
        expect(here.headers['www-authenticate']).toContain('error="invalid_token"');
      } finally {
        await other.stop();
      }
    });
  });

  describe('lifetime (injected clock)', () => {
    test('when 59 minutes have passed, then the token still works; at one hour it is refused with invalid_token', async () => {
      const tok = await accessToken(t, agent);
      clock.advance(59 * MINUTE);
      expect((await balanceWith(tok)).status).toBe(200);
      clock.advance(1 * MINUTE);
      const res = await balanceWith(tok);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource", error="invalid_token"/);
    });

    test('when a new token is issued after an old one expired, then the expired row is swept', async () => {
      await accessToken(t, agent);
      clock.advance(2 * HOUR);
      await accessToken(t, agent);
      const rows = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM access_tokens WHERE user_id = $1 AND expires_at <= $2', [
        agent.id,
        clock.now(),
      ]);
      expect(rows[0]!.n).toBe(0n);
    });
  });
});

describe.each(backends())('the token endpoint is rate-limited per IP on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { RATE_LIMIT_API_PER_MIN: 3 } });
  });
  afterAll(async () => t.close());

  test('when a fourth token request comes within the minute, then 429 RATE_LIMITED with Retry-After', async () => {
    const agent = await registerAgent(t);
    for (let i = 0; i < 3; i++) {
      expect(
        (await t.api.post('/oauth/token').type('form').set('Authorization', basicAuth(agent.id, agent.apiKey)).send({ grant_type: 'client_credentials' }))
          .status,
      ).toBe(200);
    }
    const res = await t.api
      .post('/oauth/token')
      .type('form')
      .set('Authorization', basicAuth(agent.id, agent.apiKey))
      .send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
