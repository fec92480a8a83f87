import { backends } from '../support/backends';
import { registerAgent, request, startTestApp, type TestApp } from '../support/app';

const AGENT_PAGE = 'https://agent-ui.example';

describe.each(backends())('security headers and CORS on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());

  test('when a page is served, then it carries a CSP without inline script, no framing, nosniff and a referrer policy', async () => {
    const res = await t.api.get('/').set('Accept', 'text/html');
    expect(res.status).toBe(200);
    const csp = res.headers['content-security-policy']!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['strict-transport-security']).toBeUndefined(); // BASE_URL is http here
  });

  test.each(['/openapi.json', '/.well-known/oauth-authorization-server', '/api/a2a'])(
    'when a browser-based agent on another origin reads %s, then CORS allows it without credentials',
    async (path) => {
      const res = await t.api.get(path).set('Origin', AGENT_PAGE);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    },
  );

  test('when a browser preflights a keyed POST with Authorization, then it is allowed (no credentials), and the answer exposes the limit headers', async () => {
    // A preflight is CORS protocol, not an API operation: plain supertest, not the OpenAPI-checked agent.
    const res = await request(t.app)
      .options('/api/trade')
      .set({ Origin: AGENT_PAGE, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key' });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    const allowed = res.headers['access-control-allow-headers']!.toLowerCase();
    for (const h of ['authorization', 'content-type', 'idempotency-key']) expect(allowed).toContain(h);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const after = await t.api.get('/api/a2a').set('Origin', AGENT_PAGE);
    expect(after.headers['access-control-expose-headers']).toMatch(/Retry-After.*RateLimit.*WWW-Authenticate/);
  });

  test('when a browser-based agent calls a keyed endpoint cross-origin with its bearer key, then it is served', async () => {
    const agent = await registerAgent(t);
    const res = await t.api.get('/api/user/balance').set({ Origin: AGENT_PAGE, Authorization: `Bearer ${agent.apiKey}` });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  test('when a REST body is over 100 kB, then 413 JSON', async () => {
    const res = await t.api
      .post('/api/auth/register')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ email: 'x@example.com', pad: 'x'.repeat(110_000) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe.each(backends())('security headers over https on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { BASE_URL: 'https://paper.example' } });
  });
  afterAll(async () => t.close());

  test('when BASE_URL is https, then responses carry Strict-Transport-Security', async () => {
    const res = await t.api.get('/health');
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  });
});
